"""Runs executions one at a time in the main thread, from the first output to `done`; requests from the
host arrive on the channel thread."""

import importlib
import os
import queue
import signal
import sys
import threading
import time
import traceback

from .bash_kernel import BashKernel
from .display import pyplot_imported
from .fd_reserve import FDS
from .limits import MAX_FILES, output_limit
from .log import log
from .own_process import is_agent
from .processes import exit_forked_child, forget_dead_multiprocessing_helpers, kill_strays
from . import protocol
from .workspace_fs import WorkspaceFs
from .workspace_scan import snapshot_files
from .oom_counter import OomCounter
from .own_imports import OwnImports, in_workspace
from .python_kernel import PythonKernel


def _ignore_sigint(_signum, _frame):
    """SIGINT handler outside user code: interrupts only ever target running user code."""


class Agent:
    """Runs executions one at a time in the main thread, with the Python kernel (one persistent `__main__`
    namespace) or, with SANDPIT_LANGUAGE=bash, the bash kernel."""

    def __init__(self, channel, capture, devnull):
        self.channel, self.capture, self.devnull = channel, capture, devnull
        self.requests = queue.Queue()
        self.running = None  # id of the execution whose user code is running (interrupt target)
        self.current = None  # id of the execution being handled (display messages are tagged with it)
        self.accepted = set()  # ids of executions queued or being handled
        self.cancelled = set()  # ids interrupted before their code started
        self.emit_lock = threading.Lock()  # no display after done
        self.workspace = os.environ.get('SANDPIT_WORKSPACE') or '/workspace'
        # kill(-1) is only safe inside the container: opt-in (set in the image) and only under an init (or as init)
        self.may_kill_strays = os.environ.get('SANDPIT_KILL_STRAYS') == '1' and 1 in (os.getpid(), os.getppid())
        self.bash = os.environ.get('SANDPIT_LANGUAGE') == 'bash'
        self.fs = WorkspaceFs(self.workspace, channel, self.may_kill_strays)
        self.oom = OomCounter()
        self.oom_before = 0
        self.kernel = BashKernel(self.workspace, devnull) if self.bash else PythonKernel(self.emit_display)
        own_path = [p for p in sys.path if not in_workspace(self.workspace, p)]
        sys.meta_path.insert(0, OwnImports(self, own_path))
        os.register_at_fork(after_in_child=self.after_fork_child)

    # -- requests (channel thread) --------------------------------------------------------------

    def on_message(self, msg):
        """Handle one request from the host (channel thread)."""
        kind, mid = msg.get('type'), msg.get('id')
        if not isinstance(mid, (str, int)):
            return
        if kind == 'hello':
            with FDS:  # bash_version() starts a process: the agent's descriptors, whatever user code holds
                version = self.kernel.version()
            features = ['pipe'] if self.fs.pipe_folder else []
            self.channel.send(protocol.hello_reply(mid, self.kernel.language, version, os.getpid(), features))
        elif kind == 'execute' and isinstance(msg.get('code'), str) and mid not in self.accepted:
            self.accepted.add(mid)
            self.requests.put(msg)
        elif kind == 'interrupt' and mid in self.accepted:
            self.cancelled.add(mid)  # seen by the kernel if the code has not started yet
            if mid == self.running:
                signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)  # EINTR for the main thread
        elif kind in ('fs', 'reap'):
            self.fs.submit(msg)  # served by the fs thread, in arrival order

    def after_fork_child(self):
        """In a child forked by user code: make the channel and the pipes' read ends unusable."""
        for fd in self.channel.private_fds() + self.capture.private_fds():
            try:
                os.dup2(self.devnull, fd, inheritable=False)
            except OSError:
                pass

    # -- executions (main thread) ---------------------------------------------------------------

    def serve_forever(self):
        """Run the queued executions, one at a time, for ever (main thread)."""
        signal.signal(signal.SIGINT, _ignore_sigint)
        while True:
            FDS.main(False)
            msg = self.requests.get()
            FDS.main(True)
            try:
                self.execute(msg)
            except BaseException as exc:  # an agent bug must not take the session down
                if not is_agent():
                    os._exit(1)
                log('execution failed: %s' % ''.join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
                self.channel.send(protocol.error_message(msg['id'], 'AgentError', repr(exc), 'AgentError: %r\n' % exc))
                self.finish(msg['id'], 'error', 0.0, None, 0)

    def execute(self, msg):
        """Handle one `execute` request, from the first output to `done`."""
        eid, limit = msg['id'], output_limit(msg.get('outputLimit'))
        self.capture.restore()
        importlib.invalidate_caches()  # packages installed since the last run are importable at once
        before, _ = snapshot_files(self.workspace)
        if self.may_kill_strays:
            forget_dead_multiprocessing_helpers()  # killed after an earlier execution, or by a `reap`
        self.oom_before = self.oom.count()
        self.current = eid
        self.capture.begin(eid, limit)
        started = time.perf_counter()
        status, value, exc = self.interruptible(eid, lambda: self.kernel.run(eid, msg['code'], self.cancelled))
        duration = (time.perf_counter() - started) * 1000
        synced = self.capture.sync()
        # the result or error message, sent with `done` when nothing comes between them
        status, report, exit_code = self.kernel.outcome(eid, status, value, exc, limit)
        exc = None  # let the traceback's frames go
        show = getattr(self.kernel, 'show', None)  # the Python kernel's pyplot.show()
        if show is not None and pyplot_imported():
            if report is not None:
                self.channel.send(report)  # before the figures show() sends
                report = None
            if self.interruptible(eid, show)[0] == 'interrupted':
                status = 'interrupted'
        strays = 0
        # No process outlives the execution that started it (a background process would print into later
        # executions, or hold pids and memory): once its output is synced, every other process is killed.
        if self.may_kill_strays:
            strays = kill_strays()
        # a second sync only if the first timed out, or pyplot.show() or killed strays may have written since
        drain = not synced or pyplot_imported() or strays > 0
        self.finish(eid, status, duration, before, strays, drain, report, exit_code)

    def finish(self, eid, status, duration, before, strays, drain=True, report=None, exit_code=None):
        """Drain the pipes (unless the caller just did), then send `report` (if any) and `done` with the
        files the execution changed."""
        if drain:
            if report is not None:
                self.channel.send(report)
                report = None
            self.capture.sync()
        dropped = self.capture.end()
        with self.emit_lock:
            self.current = None
        self.accepted.discard(eid)
        self.cancelled.discard(eid)
        after, complete = snapshot_files(self.workspace) if before is not None else ({}, True)
        changed = sorted(path for path, sig in after.items() if before.get(path) != sig)
        done = protocol.done_message(eid, status, round(duration, 3), dropped,
                                     [{'path': p, 'size': after[p][0]} for p in changed[:MAX_FILES]],
                                     len(changed) > MAX_FILES or not complete, strays, exit_code,
                                     self.oom.count() - self.oom_before)
        self.channel.send_now([done] if report is None else [report, done])

    def interruptible(self, eid, fn):
        """Run fn() with SIGINT raising KeyboardInterrupt; returns (status, value, exception)."""
        outcome = ('interrupted', None, KeyboardInterrupt())
        try:
            try:
                signal.signal(signal.SIGINT, signal.default_int_handler)
                self.running = eid
                FDS.main(False)  # user code gets all descriptors but the agent's reserve
                try:
                    outcome = ('ok', fn(), None)
                except KeyboardInterrupt as exc:
                    outcome = ('interrupted', None, exc)
                except BaseException as exc:  # SystemExit included: the agent never exits for user code
                    outcome = ('error', None, exc)
            finally:
                FDS.main(True)
                self.running = None
                signal.signal(signal.SIGINT, _ignore_sigint)
        except KeyboardInterrupt:  # a late SIGINT landed in the lines above
            FDS.main(True)
            self.running = None
            signal.signal(signal.SIGINT, _ignore_sigint)
        if not is_agent():
            exit_forked_child(outcome)
        return outcome

    # -- rich output ------------------------------------------------------------------------------

    def emit_display(self, mime, data, encoding):
        """Send rich output after the text output written before it."""
        if not is_agent() or self.current is None:
            return
        self.capture.sync()
        with self.emit_lock:
            if self.current is not None:
                self.channel.send(protocol.display_message(self.current, mime, data, encoding))
