"""Processes in the container: stopping what an execution leaves behind (strays), sparing the host's kept
processes, multiprocessing's helpers after they were stopped, and a child forked by user code that comes back
into the agent."""

import os
import signal
import sys
import time
import traceback

from .errors import clean_traceback


def process_table():
    """{pid: (state letter, ppid, session id)} of every process in /proc but this one and init: one read of
    each /proc/<pid>/stat."""
    me, found = os.getpid(), {}
    for name in os.listdir('/proc'):
        if not name.isdigit() or int(name) in (1, me):
            continue
        try:
            with open('/proc/%s/stat' % name, 'rb') as f:
                line = f.read()
        except OSError:
            continue
        fields = line[line.rfind(b')') + 2:].split(b' ', 4)
        try:
            found[int(name)] = (fields[0].decode('ascii', 'replace'), int(fields[1]), int(fields[3]))
        except (IndexError, ValueError):
            continue
    return found


KEPT_MARK = b'sandpit-process'  # argv[3] of the leader: sh -c <wrapper> sandpit-process <command>


def kept_sessions(table):
    """Session ids of the host's long-running processes (start_process, preview forwarders) in `table`
    (process_table()): each one's leader was started by the engine (`exec`: its parent is outside the
    container, ppid 0) and carries the host's mark in its argv. Code in the sandbox can never make such a
    process (all of its processes descend from init), so nothing a run leaves behind can pass for one; a
    leader that ended frees its session. Only leaders are read further (their argv)."""
    kept = set()
    for pid, (state, ppid, sid) in table.items():
        if state in 'ZX' or ppid != 0 or sid != pid:
            continue
        try:
            with open('/proc/%d/cmdline' % pid, 'rb') as f:
                argv = f.read(1 << 20).split(b'\0')
        except OSError:
            continue
        if len(argv) > 4 and argv[0] == b'sh' and argv[3] == KEPT_MARK:
            kept.add(pid)
    return kept


def kill_strays():
    """SIGKILL every process but this one and init (kill(-1) spares the caller); returns how many there were
    (zombies are already dead). Waits (at most a second) until each of them is dead, so none can still write
    into the pipes, and reaps those that were this process's children. A child that had ended by itself
    before is left for user code to wait for (its Popen keeps its exit code). The host's long-running
    processes (kept_sessions) and everything in their sessions are spared: then each stray is killed by pid,
    pass after pass until none is left (a forking stray's children are found on the next pass)."""
    me = os.getpid()
    table = process_table()
    kept = kept_sessions(table)
    strays = {pid: ppid for pid, (state, ppid, sid) in table.items()
              if state not in 'ZX' and sid not in kept}
    if not strays:
        return 0
    if not kept:
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
    deadline = time.monotonic() + 1.0
    pending = set(strays)
    while pending:
        states = process_table()
        if kept:
            for pid, (state, ppid, sid) in states.items():
                if state in 'ZX' or sid in kept:
                    continue
                if pid not in strays:
                    strays[pid] = ppid
                    pending.add(pid)
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        for pid in list(pending):
            if strays[pid] == me:  # our child: dead once reaped
                try:
                    if os.waitpid(pid, os.WNOHANG)[0] == 0:
                        continue
                except OSError:  # reaped by someone else (user code waiting for it)
                    pass
            elif pid in states and states[pid][0] not in 'ZX':
                continue
            pending.discard(pid)
        if not pending or time.monotonic() > deadline:
            break
        time.sleep(0.002)
    return len(strays)


def forget_dead_multiprocessing_helpers():
    """multiprocessing keeps a fork server and a resource tracker running between uses; once they have been
    killed (they are strays too), make the next use start new ones instead of failing (ChildProcessError)
    or warning. Only touches what is gone, and only when multiprocessing was imported."""
    me = os.getpid()

    def gone(pid):
        try:
            with open('/proc/%d/stat' % pid, 'rb') as f:
                line = f.read()
        except OSError:
            return True
        fields = line[line.rfind(b')') + 2:].split(b' ', 2)
        return len(fields) < 2 or fields[1] != str(me).encode()  # reaped, and the pid maybe reused

    helpers = ((sys.modules.get('multiprocessing.forkserver'), '_forkserver', '_forkserver_pid', '_forkserver_alive_fd'),
               (sys.modules.get('multiprocessing.resource_tracker'), '_resource_tracker', '_pid', '_fd'))
    for module, name, pid_attr, fd_attr in helpers:
        helper = getattr(module, name, None)
        pid = getattr(helper, pid_attr, None)
        lock = getattr(helper, '_lock', None)
        if not isinstance(pid, int) or lock is None or not gone(pid) or not lock.acquire(blocking=False):
            continue
        try:
            if getattr(helper, pid_attr, None) != pid:
                continue
            fd = getattr(helper, fd_attr, None)
            if isinstance(fd, int):
                try:
                    os.close(fd)
                except OSError:
                    pass
            address = getattr(helper, '_forkserver_address', None)
            if isinstance(address, str) and address and not address.startswith('\0'):
                try:
                    os.unlink(address)
                except OSError:
                    pass
            for attr in (pid_attr, fd_attr, '_forkserver_address'):
                if hasattr(helper, attr):
                    setattr(helper, attr, None)
        finally:
            lock.release()


def exit_forked_child(outcome):
    """A child forked by user code has come back into the agent: report like Python would, then exit."""
    code = 1
    try:
        exc = outcome[2]
        if exc is None:
            code = 0
        elif isinstance(exc, SystemExit) and (exc.code is None or isinstance(exc.code, int)):
            code = (exc.code or 0) & 0xFF
        elif isinstance(exc, SystemExit):
            print(exc.code, file=sys.stderr)
        else:
            traceback.print_exception(type(exc), exc, clean_traceback(exc.__traceback__))
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)
