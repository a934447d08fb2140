"""The file descriptors user code can never take from the agent."""

import resource
import threading

from .own_process import is_agent

FD_RESERVE = 64  # descriptors user code can never take from the agent


class FdBudget:
    """Keeps FD_RESERVE file descriptors for the agent's own work. User code runs with the soft
    RLIMIT_NOFILE lowered by FD_RESERVE, so code that opens files until EMFILE (and keeps them) still
    leaves the agent what it needs around a run (the file scan, the cgroup and /proc reads, `fs`
    requests, a new channel connection). The limit is the full one while the main thread does the
    agent's work (`main(True)`, idempotent, so a late SIGINT cannot unbalance it) or another thread is
    inside `with FDS:`; between runs and while user code runs it is the lowered one."""

    def __init__(self):
        self.lock = threading.Lock()
        self.depth = 0  # threads other than the main one inside `with FDS:`
        self.main_busy = True  # the main thread does the agent's work
        try:
            soft, self.hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        except (OSError, ValueError):
            soft = self.hard = resource.RLIM_INFINITY
        self.full = soft
        # no reserve where there is no finite limit, or too small a one to share
        self.user = soft - FD_RESERVE if soft != resource.RLIM_INFINITY and soft >= 4 * FD_RESERVE else None
        self.applied = self.full

    def _apply(self):
        soft = self.full if self.main_busy or self.depth > 0 else self.user
        if soft is None or soft == self.applied:
            return
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, self.hard))
            self.applied = soft
        except (OSError, ValueError):
            pass  # user code changed the hard limit: it keeps what it chose

    def main(self, busy):
        """The main thread starts (True) or stops (False) doing the agent's work."""
        if not is_agent():
            return
        with self.lock:
            self.main_busy = busy
            self._apply()

    def __enter__(self):
        with self.lock:
            self.depth += 1
            self._apply()
        return self

    def __exit__(self, *_exc):
        with self.lock:
            self.depth -= 1
            self._apply()


FDS = FdBudget()
