#!/usr/bin/env python3
"""Sandpit's in-container Python agent (protocol 1, see ../PROTOCOL.md).

Keeps one globals dict between executions and speaks JSON lines with the host on a private channel
(a unix socket, or the original stdin/stdout). User code's fd 0 is /dev/null and its fds 1/2 are
pipes drained by this agent, so nothing user code prints can reach the channel.

With SANDPIT_LANGUAGE=bash the agent serves a bash session instead: each execution runs its code as a
one-shot `bash -c` in the workspace (no state between runs but the files), with the same capture,
interrupts, output caps and file reports; `done` carries the command's exit code, and any process the
command left behind is stopped when it ends.

Where the agent may kill strays (SANDPIT_KILL_STRAYS=1, under an init), no process outlives the execution
that started it. The host's file operations on the workspace (`fs` requests) are served here too, as the
sandbox user and never through a link (WorkspaceFs).

Standard library only; Python >= 3.9. Runs as `python3 agent.py`.
"""

import ast
import base64
import builtins
import codecs
import errno
import fcntl
import importlib
import importlib.machinery
import io
import json
import linecache
import os
import platform
import queue
import resource
import select
import signal
import socket
import stat
import subprocess
import sys
import termios
import threading
import time
import traceback
import types

PROTOCOL = 1
AGENT_PID = os.getpid()
AGENT_FILE = (lambda: None).__code__.co_filename  # frames from this file are hidden from users
READ_SIZE = 65536
WRITE_BATCH = 1 << 20  # the writer joins queued messages into one write, up to about this many bytes
COALESCE = 0.002  # a pump gathers what arrives within 2 ms into one message (fewer, larger chunks)
SYNC_TIMEOUT = 2.0
MAX_WALK = 20000
FD_RESERVE = 64  # descriptors user code can never take from the agent (see FdBudget)
MAX_FILES = 1000
DEFAULT_LIMIT = 1 << 20
MIN_TEXT_LIMIT = 4096  # results and tracebacks are clipped to max(outputLimit, this) characters
CO_COROUTINE = 0x80
LOG_FD = 2


def log(text):
    """Write a diagnostic about the agent itself to the original stderr (never the channel)."""
    try:
        os.write(LOG_FD, ('sandpit-agent: %s\n' % text).encode('utf-8', 'replace'))
    except OSError:
        pass


def write_all(fd, data):
    """Write every byte of `data` to `fd`."""
    view = memoryview(data).cast('B')
    while view:
        view = view[os.write(fd, view):]


def clip(text, limit):
    """Shorten `text` to about max(limit, MIN_TEXT_LIMIT) characters, saying so."""
    limit = max(limit, MIN_TEXT_LIMIT)
    if len(text) <= limit:
        return text
    return text[:limit] + '\u2026 [%d more characters]' % (len(text) - limit)


def _ignore_sigint(_signum, _frame):
    """SIGINT handler outside user code: interrupts only ever target running user code."""


class FdWriter(io.RawIOBase):
    """Unbuffered binary writer on a file descriptor that never writes partially."""

    def __init__(self, fd):
        super().__init__()
        self._fd = fd

    def writable(self):
        return True

    def fileno(self):
        return self._fd

    def write(self, data):
        write_all(self._fd, data)
        return len(data)


def text_stream(fd):
    """A write-through text stream on `fd`, for sys.stdout / sys.stderr."""
    return io.TextIOWrapper(FdWriter(fd), encoding='utf-8', errors='backslashreplace', write_through=True)


class Channel:
    """The JSON-lines transport to the host. Only the agent's own pid ever writes on it."""

    def __init__(self, spec):
        self.spec = spec
        self.outbox = queue.Queue(maxsize=128)  # bounded: slow hosts apply back-pressure to output
        self.lock = threading.Lock()  # guards `conn` and every write on the channel
        self.count_lock = threading.Lock()
        self.queued = 0  # messages queued and not yet written (guarded by count_lock)
        self.conn = None
        self.server = None
        self.in_fd = self.out_fd = None
        if spec == 'stdio':  # claim the original stdin/stdout before fds 0/1 are replaced
            self.in_fd, self.out_fd = os.dup(0), os.dup(1)

    def private_fds(self):
        """File descriptors a forked child must not be able to use."""
        socks = [s for s in (self.server, self.conn) if s is not None]
        return [fd for fd in [self.in_fd, self.out_fd] + [s.fileno() for s in socks] if fd is not None and fd >= 0]

    def start(self, on_message):
        """Start the reader and writer threads; `on_message(dict)` is called for every request."""
        self.on_message = on_message
        if self.spec == 'stdio':
            threading.Thread(target=self._read_stdio, name='sandpit-channel', daemon=True).start()
        else:
            path = self.spec[len('socket:'):]
            if os.path.lexists(path) and not os.path.isdir(path):
                os.unlink(path)
            self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.server.bind(path)
            os.chmod(path, 0o600)
            self.server.listen(4)
            threading.Thread(target=self._accept, name='sandpit-accept', daemon=True).start()
        threading.Thread(target=self._write_loop, name='sandpit-writer', daemon=True).start()

    @staticmethod
    def encode(msg):
        return (json.dumps(msg, ensure_ascii=False, separators=(',', ':')) + '\n').encode('utf-8', 'replace')

    def send(self, msg):
        """Queue one message for the host (dropped silently in forked children)."""
        if os.getpid() == AGENT_PID:
            self._queue(self.encode(msg))

    def send_now(self, msgs):
        """Send messages from the calling thread when nothing queued is still unwritten, else queue them.
        Only for the main thread outside user code (a KeyboardInterrupt must not cut a write short)."""
        if os.getpid() != AGENT_PID:
            return
        data = b''.join(self.encode(msg) for msg in msgs)
        with self.lock:
            with self.count_lock:
                direct = self.queued == 0
            if direct:
                self._write_locked(data)
                return
        self._queue(data)

    def _queue(self, data):
        with self.count_lock:
            self.queued += 1
        self.outbox.put(data)

    def _write_loop(self):
        while True:
            batch = [self.outbox.get()]
            size = len(batch[0] or b'')
            while batch[-1] is not None and size < WRITE_BATCH:  # what else is queued leaves in the same write
                try:
                    data = self.outbox.get_nowait()
                except queue.Empty:
                    break
                batch.append(data)
                size += len(data or b'')
            end = batch[-1] is None  # queued by _read_stdio at the end of the channel
            if end:
                batch.pop()
            with self.lock:
                self._write_locked(b''.join(batch))
                with self.count_lock:
                    self.queued -= len(batch)
            if end:
                os._exit(0)

    def _write_locked(self, data):
        """Write on the channel (self.lock held)."""
        if not data:
            return
        if self.out_fd is not None:
            try:
                write_all(self.out_fd, data)
            except OSError:
                os._exit(0)  # the host is gone
        elif self.conn is not None:
            try:
                self.conn.sendall(data)
            except OSError:
                pass  # the reader notices the broken connection

    def _dispatch(self, line):
        try:
            msg = json.loads(line)
        except ValueError:
            return
        if isinstance(msg, dict):
            try:
                self.on_message(msg)
            except Exception as exc:  # never let a bad request kill the reader
                log('request failed: %r' % exc)

    def _read_stdio(self):
        try:
            with io.open(self.in_fd, 'rb', closefd=False) as stream:
                for line in stream:
                    self._dispatch(line)
        except OSError:
            pass
        try:  # end of the channel: send what is already queued (briefly), then exit
            self.outbox.put(None, timeout=1.0)
            time.sleep(2.0)
        finally:
            os._exit(0)

    def _accept(self):
        while True:
            try:
                select.select([self.server], [], [])
                with FDS:  # a new connection gets a descriptor whatever user code holds
                    conn, _ = self.server.accept()
            except OSError:
                time.sleep(0.05)
                continue
            old = self.conn
            if old is not None:
                try:
                    old.shutdown(socket.SHUT_RDWR)  # wakes a writer blocked on it; its reader closes it
                except OSError:
                    pass
            with self.lock:
                self.conn = conn
            threading.Thread(target=self._read_socket, args=(conn,), name='sandpit-conn', daemon=True).start()

    def _read_socket(self, conn):
        try:
            with conn.makefile('rb') as stream:
                for line in stream:
                    self._dispatch(line)
        except OSError:
            pass
        with self.lock:
            if self.conn is conn:
                self.conn = None
            conn.close()


class Pump(threading.Thread):
    """Owns the pipe behind fd 1 or 2 and forwards what it reads as `stream` messages."""

    def __init__(self, name, target_fd, send):
        super().__init__(name='sandpit-' + name, daemon=True)
        self.stream, self.target_fd, self.send = name, target_fd, send
        self.rfd, self.wfd = os.pipe()  # both private (non-inheritable); fd `target_fd` is a copy of wfd
        self.rebind()
        self.lock = threading.Lock()  # guards the per-execution state below, `idle` and sends
        self.hit = threading.Event()
        self.eid, self.limit, self.sent, self.dropped = None, 0, 0, 0
        self.decoder = None
        self.marker, self.held = None, b''
        self.idle = False  # the thread waits for data and has forwarded all it read (see settled())
        self.nread = bytearray(4)

    def rebind(self):
        """Point the public fd at this pipe again (user code may have closed or replaced it)."""
        os.dup2(self.wfd, self.target_fd)

    def begin(self, eid, limit):
        """Attribute output to execution `eid`, forwarding at most `limit` bytes."""
        with self.lock:
            self.eid, self.limit, self.sent, self.dropped = eid, limit, 0, 0
            self.decoder = codecs.getincrementaldecoder('utf-8')(errors='replace')

    def end(self):
        """Stop forwarding for the current execution; returns its dropped byte count."""
        with self.lock:
            self._disarm()
            if self.eid is not None:
                self._emit(self.decoder.decode(b'', True))
            self.eid = None
            return self.dropped

    def arm(self, marker):
        """Write the sync `marker` into the pipe; `hit` is set once everything before it is forwarded."""
        with self.lock:
            self._disarm()
            self.marker = marker
            self.hit.clear()
        try:
            write_all(self.wfd, marker)  # atomic: shorter than PIPE_BUF
            return True
        except OSError:
            self.disarm()
            return False

    def disarm(self):
        """Give up waiting for the marker (sync timed out)."""
        with self.lock:
            self._disarm()

    def _disarm(self):
        held, self.held, self.marker = self.held, b'', None
        self._forward(held)

    def settled(self):
        """Whether everything written to the pipe so far has been forwarded: the thread is waiting
        for data (it reads only after clearing `idle`, and forwards under the lock before setting it)
        and the pipe is empty. Then a sync needs no marker round trip through this thread."""
        with self.lock:
            if not self.idle or self.marker is not None:
                return False
            try:
                fcntl.ioctl(self.rfd, termios.FIONREAD, self.nread)
            except OSError:
                return False
            return not any(self.nread)

    def run(self):
        poller = select.poll()
        poller.register(self.rfd, select.POLLIN)
        with self.lock:
            self.idle = True
        while True:
            try:
                poller.poll()  # wait without reading: settled() may look at the pipe meanwhile
                with self.lock:
                    self.idle = False
                data = self._read()
            except OSError:
                return
            if not data:
                return
            with self.lock:
                self._feed(data)
                self.idle = True

    def _read(self):
        data = os.read(self.rfd, READ_SIZE)
        deadline = time.monotonic() + COALESCE
        while data and len(data) < READ_SIZE and self.marker is None:  # no waiting while a sync is pending
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.rfd], [], [], left)[0]:
                break
            data += os.read(self.rfd, READ_SIZE - len(data))
        return data

    def _feed(self, data):
        marker = self.marker
        if marker is None:
            self._forward(data)
            return
        buf = self.held + data
        index = buf.find(marker)
        if index < 0:  # hold back a tail that may be the start of a marker split across reads
            cut = max(len(buf) - len(marker) + 1, 0)
            self.held = buf[cut:]
            self._forward(buf[:cut])
            return
        self.held, self.marker = b'', None
        self._forward(buf[:index])
        self.hit.set()
        self._forward(buf[index + len(marker):])

    def _forward(self, data):
        if not data or self.eid is None:
            return  # output written while no execution runs is discarded
        room = max(self.limit - self.sent, 0)
        if len(data) > room:
            self.dropped += len(data) - room
            data = data[:room]
        self.sent += len(data)
        self._emit(self.decoder.decode(data))

    def _emit(self, text):
        if text:
            self.send({'type': 'stream', 'id': self.eid, 'name': self.stream, 'text': text})


class OwnImports:
    """Meta-path finder: outside a run, a module is looked up first where the agent's own come from.

    User code imports from the working directory (sys.path[0] is ''), as an interactive interpreter does. The
    agent's own late imports (and those of the standard library it calls) happen between runs too: answering a
    file request, the after-run scan, a hello after a restart. There a module planted in the workspace (a
    `json.py` written with write_file) must never be what loads: between runs, names that exist on the agent's
    own import path (the standard library, the image's site-packages, the package store, none of which the
    sandbox can write) resolve there. During a run, Python's usual order holds.
    """

    def __init__(self, agent, own_path):
        self.agent = agent
        self.own_path = own_path

    def find_spec(self, name, path=None, target=None):
        if path is not None or self.agent.running is not None:
            return None  # submodules follow their package; a run imports as the user's code says
        return importlib.machinery.PathFinder.find_spec(name, self.own_path, target)


class PyplotHook:
    """Meta-path finder that patches `matplotlib.pyplot.show` when user code imports pyplot."""

    def __init__(self, show):
        self.show = show

    def find_spec(self, name, path=None, target=None):
        if name != 'matplotlib.pyplot':
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        exec_module = getattr(getattr(spec, 'loader', None), 'exec_module', None)
        if exec_module is None:
            return None

        def exec_and_patch(module):
            exec_module(module)
            module.show = self.show

        try:
            spec.loader.exec_module = exec_and_patch
        except (AttributeError, TypeError):
            return None
        return spec


def rich_repr(obj):
    """(mime, data, encoding) for an object with a rich representation, else (None, None, None)."""
    if isinstance(obj, type):
        return None, None, None
    if type(obj).__module__.startswith('matplotlib.') and hasattr(obj, 'savefig'):
        return 'image/png', figure_png(obj), 'base64'
    for attr, mime in (('_repr_png_', 'image/png'), ('_repr_svg_', 'image/svg+xml'), ('_repr_html_', 'text/html')):
        method = getattr(obj, attr, None)
        data = method() if callable(method) else None
        if isinstance(data, tuple) and data:  # IPython's (data, metadata) convention
            data = data[0]
        if isinstance(data, (bytes, bytearray)):
            if mime == 'image/png':
                return mime, base64.b64encode(data).decode('ascii'), 'base64'
            data = bytes(data).decode('utf-8', 'replace')
        if isinstance(data, str):
            return mime, data, 'base64' if mime == 'image/png' else 'utf8'
    return None, None, None


def figure_png(fig):
    """A matplotlib figure as base64 PNG."""
    buf = io.BytesIO()
    fig.savefig(buf, format='png', bbox_inches='tight')
    return base64.b64encode(buf.getvalue()).decode('ascii')


def clean_traceback(tb):
    """Drop the agent's frames: everything before the first cell frame, and any agent frame after it."""
    frames = []
    while tb is not None:
        frames.append(tb)
        tb = tb.tb_next
    names = [t.tb_frame.f_code.co_filename for t in frames]
    start = next((i for i, name in enumerate(names) if name.startswith('<cell-')), 0)
    kept = [t for t, name in zip(frames[start:], names[start:]) if name != AGENT_FILE]
    for before, after in zip(kept, kept[1:]):
        before.tb_next = after
    if kept:
        kept[-1].tb_next = None
    return kept[0] if kept else None


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
        if os.getpid() != AGENT_PID:
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


def mount_points_under(root):
    """Absolute paths of the file systems mounted below `root` (the session's shared folders), from
    /proc/self/mountinfo: the after-run scan leaves them out, so a large shared folder never hides the
    files a run made in the workspace, and its files are never walked at every run."""
    found = set()
    prefix = root.rstrip('/') + '/'
    try:
        with open('/proc/self/mountinfo', 'rb') as f:
            lines = f.read().split(b'\n')
    except OSError:
        return found
    for line in lines:
        fields = line.split(b' ')
        if len(fields) < 5:
            continue
        raw = fields[4]
        try:  # spaces, tabs, newlines and backslashes are written as \ooo
            path = os.fsdecode(codecs.escape_decode(raw)[0])
        except (ValueError, UnicodeError):
            continue
        if path.startswith(prefix):
            found.add(path)
    return found


def snapshot_files(root):
    """{relpath: (size, mtime_ns)} of regular files under `root` (no symlinks, nothing below another mount:
    shared folders are left out), and whether the walk was complete."""
    files, seen, stack = {}, 0, ['']
    mounts = mount_points_under(root)
    while stack:
        rel = stack.pop()
        try:
            with os.scandir(os.path.join(root, rel) if rel else root) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > MAX_WALK:
                return files, False
            path = rel + '/' + entry.name if rel else entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if not mounts or entry.path not in mounts:
                        stack.append(path)
                elif entry.is_file(follow_symlinks=False):
                    st = entry.stat(follow_symlinks=False)
                    files[path] = (st.st_size, st.st_mtime_ns)
            except OSError:
                pass
    return files, True


class OomCounter:
    """How many processes the kernel has killed in this container for memory (cgroup v1 memory.oom_control
    or v2 memory.events, `oom_kill N`), read through a file kept open. An OOM-killed child leaves the agent
    alive, and the engine's `oom` event can arrive after `done`: this count cannot."""

    def __init__(self):
        self.file = None

    def count(self):
        for _ in range(2):
            if self.file is None:
                for path in ('/sys/fs/cgroup/memory/memory.oom_control', '/sys/fs/cgroup/memory.events'):
                    try:
                        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
                    except OSError:
                        continue
                    st = os.fstat(fd)
                    self.file = (fd, (st.st_dev, st.st_ino))
                    break
                if self.file is None:
                    return 0
            try:
                fd, ident = self.file
                st = os.fstat(fd)  # user code may have closed our fd, and its number been reused
                if (st.st_dev, st.st_ino) != ident:
                    raise OSError('not the cgroup file')
                text = os.pread(fd, 512, 0)
            except OSError:
                self.file = None  # not closed: the number may be user code's file by now
                continue
            for line in text.split(b'\n'):
                name, _, value = line.partition(b' ')
                if name == b'oom_kill' and value.strip().isdigit():
                    return int(value)
            return 0
        return 0


def process_states():
    """{pid: (state letter, ppid)} of every process in /proc but this one and init."""
    me, found = os.getpid(), {}
    for name in os.listdir('/proc'):
        if not name.isdigit() or int(name) in (1, me):
            continue
        try:
            with open('/proc/%s/stat' % name, 'rb') as f:
                line = f.read()
        except OSError:
            continue
        fields = line[line.rfind(b')') + 2:].split(b' ', 2)
        try:
            found[int(name)] = (fields[0].decode('ascii', 'replace'), int(fields[1]))
        except (IndexError, ValueError):
            continue
    return found


KEPT_MARK = b'sandpit-process'  # argv[3] of the leader: sh -c <wrapper> sandpit-process <command>


def kept_sessions():
    """Session ids of the host's long-running processes (start_process, preview forwarders): each one's
    leader was started by the engine (`exec`: its parent is outside the container, ppid 0) and carries the
    host's mark in its argv. Code in the sandbox can never make such a process (all of its processes descend
    from init), so nothing a run leaves behind can pass for one; a leader that ended frees its session."""
    kept = set()
    for name in os.listdir('/proc'):
        if not name.isdigit() or name == '1':
            continue
        try:
            with open('/proc/%s/stat' % name, 'rb') as f:
                line = f.read()
            fields = line[line.rfind(b')') + 2:].split(b' ', 4)
            if fields[0] in (b'Z', b'X') or fields[1] != b'0' or fields[3] != name.encode():
                continue
            with open('/proc/%s/cmdline' % name, 'rb') as f:
                argv = f.read(1 << 20).split(b'\0')
            if len(argv) > 4 and argv[0] == b'sh' and argv[3] == KEPT_MARK:
                kept.add(int(name))
        except (OSError, IndexError):
            continue
    return kept


def session_of(pid):
    try:
        with open('/proc/%d/stat' % pid, 'rb') as f:
            line = f.read()
        return int(line[line.rfind(b')') + 2:].split(b' ', 4)[3])
    except (OSError, IndexError, ValueError):
        return None


def kill_strays():
    """SIGKILL every process but this one and init (kill(-1) spares the caller); returns how many there were
    (zombies are already dead). Waits (at most a second) until each of them is dead, so none can still write
    into the pipes, and reaps those that were this process's children. A child that had ended by itself
    before is left for user code to wait for (its Popen keeps its exit code). The host's long-running
    processes (kept_sessions) and everything in their sessions are spared: then each stray is killed by pid,
    pass after pass until none is left (a forking stray's children are found on the next pass)."""
    me = os.getpid()
    kept = kept_sessions()
    strays = {pid: ppid for pid, (state, ppid) in process_states().items()
              if state not in 'ZX' and not (kept and session_of(pid) in kept)}
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
        states = process_states()
        if kept:
            for pid, (state, ppid) in states.items():
                if state in 'ZX' or session_of(pid) in kept:
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


def bash_version():
    """The version of the bash that bash sessions run, or 'unknown'."""
    try:
        out = subprocess.run(['bash', '-c', 'echo "$BASH_VERSION"'], stdin=subprocess.DEVNULL, capture_output=True,
                             timeout=5, check=False).stdout
        return out.decode('ascii', 'replace').strip() or 'unknown'
    except (OSError, subprocess.SubprocessError):
        return 'unknown'


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


# -- workspace files for the host (`fs` and `reap` requests) ----------------------------------------
#
# The host reads, lists and writes workspace files through the agent, so that it is done with the sandbox
# user's rights and never through a link that sandboxed code planted. Every path is walked from a
# descriptor of the workspace root, one component at a time, with O_NOFOLLOW (dir_fd): a symlink anywhere
# in the path is refused, never resolved. Requests are handled one at a time, in arrival order, by a thread
# of their own (the channel thread only queues them, so it stays free for interrupts); they never touch
# user code's state.

FS_CHUNK = 1 << 20  # raw bytes per fs-data message
FS_MAX_PATH = 4096  # bytes of a request's path
FS_DEFAULT_MAX_BYTES = 100 << 20  # a read without a valid maxBytes
FS_MAX_LIST = 5000  # entries in one fs-list
FS_MAX_NAMES = 200000  # names looked at when listing one directory
FS_MAX_USAGE_ENTRIES = 200000  # entries counted for fileBytes
FS_MAX_DEPTH = 256  # directory levels counted for fileBytes
FS_MAX_WRITES = 64  # writes in progress (first chunk received, last not yet)
FS_QUEUED_MAX = 4  # a read sends its next chunk once at most this many channel messages wait
FS_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
FS_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC  # a FIFO never blocks
FS_WRITE_FLAGS = os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


class FsError(Exception):
    """A failed file operation: `code` is one of the protocol's fs-error codes."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code, self.message = code, message


def fs_path_parts(path, allow_root):
    """The components of a request's workspace-relative path; FsError INVALID_PATH when it is not one."""
    if not isinstance(path, str):
        raise FsError('INVALID_PATH', 'The path must be a string.')
    if path == '':
        if allow_root:
            return []
        raise FsError('INVALID_PATH', 'The path is empty: name a file in the workspace.')
    if '\0' in path:
        raise FsError('INVALID_PATH', 'The path contains a NUL character.')
    if path.startswith('/'):
        raise FsError('INVALID_PATH', 'The path "%s" must be relative to the workspace (no leading "/").' % path[:200])
    try:
        size = len(os.fsencode(path))
    except UnicodeError:
        raise FsError('INVALID_PATH', 'The path is not valid text.') from None
    if size > FS_MAX_PATH:
        raise FsError('INVALID_PATH', 'The path is %d bytes long, more than %d.' % (size, FS_MAX_PATH))
    parts = path.split('/')
    for part in parts:
        if part in ('', '.', '..'):
            raise FsError('INVALID_PATH', 'The path "%s" has an empty, "." or ".." component.' % path[:200])
    return parts


def fs_error(exc, dir_fd, name, shown):
    """The FsError for an OSError raised while opening or making `name` in `dir_fd` (`shown` is its path
    in the workspace). A link is named as such whatever the errno (O_DIRECTORY|O_NOFOLLOW on a link gives
    ENOTDIR, O_NOFOLLOW alone ELOOP)."""
    if dir_fd is not None and name is not None:
        try:
            if stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode):
                return FsError('LINK', '"%s" is a symbolic link; links are never followed.' % shown)
        except OSError:
            pass
    return fs_errno_error(exc, shown)


def fs_errno_error(exc, shown):
    """The FsError for an OSError about `shown`, by its errno."""
    code = {
        errno.ELOOP: 'LINK', errno.ENOENT: 'NOT_FOUND', errno.ENOTDIR: 'NOT_A_DIRECTORY', errno.EISDIR: 'NOT_A_FILE',
        errno.ENXIO: 'NOT_A_FILE', errno.EACCES: 'DENIED', errno.EPERM: 'DENIED', errno.EROFS: 'DENIED',
        errno.ENOSPC: 'NO_SPACE', errno.EDQUOT: 'NO_SPACE', errno.EFBIG: 'NO_SPACE',  # EFBIG: RLIMIT_FSIZE
        errno.ENAMETOOLONG: 'INVALID_PATH',
    }.get(exc.errno, 'IO')
    message = {
        'LINK': '"%s" is a symbolic link; links are never followed.',
        'NOT_FOUND': '"%s" does not exist.',
        'NOT_A_DIRECTORY': '"%s" is not a directory.',
        'NOT_A_FILE': '"%s" is not a regular file.',
        'DENIED': '"%s": permission denied.',
        'NO_SPACE': 'No space left on device (writing "%s").',
        'INVALID_PATH': '"%s": a name in the path is too long.',
    }.get(code)
    if message is None:
        return FsError(code, '"%s": %s.' % (shown, exc.strerror or exc))
    return FsError(code, message % shown)


def fs_kind(mode):
    if stat.S_ISREG(mode):
        return 'file'
    if stat.S_ISDIR(mode):
        return 'directory'
    if stat.S_ISLNK(mode):
        return 'symlink'
    return 'other'


class WorkspaceFs:
    """Serves `fs` and `reap` requests (see PROTOCOL.md) in a thread of its own."""

    def __init__(self, root, channel, may_kill_strays):
        self.root, self.channel, self.may_kill_strays = root, channel, may_kill_strays
        self.requests = queue.Queue()
        self.writes = {}  # id -> (fd, shown path, size when opened) of a write whose last chunk has not come yet
        self.failed = {}  # ids of failed writes whose later chunks are ignored (until `last`), oldest first

    def start(self):
        threading.Thread(target=self._serve, name='sandpit-fs', daemon=True).start()

    def submit(self, msg):
        """Queue a request (channel thread)."""
        self.requests.put(msg)

    def _serve(self):
        while True:
            msg = self.requests.get()
            with FDS:  # the agent's descriptors, whatever user code holds
                self.serve_one(msg.get('id'), msg)

    def serve_one(self, mid, msg):
        """Answer one request (fs thread)."""
        try:
            if msg.get('type') == 'reap':
                self.channel.send({'type': 'reaped', 'id': mid, 'killed': kill_strays() if self.may_kill_strays else 0})
            else:
                self.handle(mid, msg)
        except FsError as err:
            self.channel.send({'type': 'fs-error', 'id': mid, 'code': err.code, 'message': err.message})
        except Exception as exc:  # an agent bug: answer, and keep serving
            log('fs request failed: %s' % ''.join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
            self.channel.send({'type': 'fs-error', 'id': mid, 'code': 'IO', 'message': 'Internal error: %r' % exc})

    def handle(self, mid, msg):
        op = msg.get('op')
        if op == 'write':
            self.write(mid, msg)
        elif op == 'read':
            self.read(mid, msg)
        elif op == 'list':
            self.list(mid, msg)
        elif op == 'usage':
            self.usage(mid)
        else:
            raise FsError('IO', 'Unknown fs operation %r.' % (op,))

    # -- walking ------------------------------------------------------------------------------------

    def open_root(self):
        try:
            return os.open(self.root, FS_DIR_FLAGS & ~os.O_NOFOLLOW)  # the configured root itself is trusted
        except OSError as exc:
            raise fs_errno_error(exc, 'the workspace') from None

    def open_dirs(self, parts, create=False):
        """A descriptor of the directory `parts` (walked from the root, never through a link), creating
        missing ones (mode 0755) when `create`."""
        fd = self.open_root()
        try:
            for i, part in enumerate(parts):
                shown = '/'.join(parts[:i + 1])
                try:
                    sub = os.open(part, FS_DIR_FLAGS, dir_fd=fd)
                except FileNotFoundError:
                    if not create:
                        raise FsError('NOT_FOUND', '"%s" does not exist.' % shown) from None
                    sub = self.make_dir(fd, part, shown)
                except OSError as exc:
                    raise fs_error(exc, fd, part, shown) from None
                os.close(fd)
                fd = sub
        except BaseException:
            os.close(fd)
            raise
        return fd

    @staticmethod
    def make_dir(dir_fd, name, shown):
        made = False
        try:
            os.mkdir(name, 0o755, dir_fd=dir_fd)
            made = True
        except FileExistsError:
            pass  # made meanwhile (or a link planted: refused below)
        except OSError as exc:
            raise fs_error(exc, dir_fd, name, shown) from None
        try:
            fd = os.open(name, FS_DIR_FLAGS, dir_fd=dir_fd)
        except OSError as exc:
            raise fs_error(exc, dir_fd, name, shown) from None
        if made:
            try:
                os.fchmod(fd, 0o755)  # whatever umask user code set
            except OSError:
                pass
        return fd

    # -- operations -----------------------------------------------------------------------------------

    def read(self, mid, msg):
        parts = fs_path_parts(msg.get('path'), False)
        limit = msg.get('maxBytes')
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
            limit = FS_DEFAULT_MAX_BYTES
        path = '/'.join(parts)
        dir_fd = self.open_dirs(parts[:-1])
        try:
            fd = os.open(parts[-1], FS_READ_FLAGS, dir_fd=dir_fd)
        except OSError as exc:
            raise fs_error(exc, dir_fd, parts[-1], path) from None
        finally:
            os.close(dir_fd)
        try:
            st = os.fstat(fd)
            if stat.S_ISLNK(st.st_mode):
                raise FsError('LINK', '"%s" is a symbolic link; links are never followed.' % path)
            if not stat.S_ISREG(st.st_mode):
                raise FsError('NOT_A_FILE', '"%s" is %s, not a regular file.' % (
                    path, 'a directory' if stat.S_ISDIR(st.st_mode) else 'a special file'))
            if st.st_size > limit:
                raise FsError('TOO_LARGE', '"%s" is %d bytes, more than the limit of %d bytes.' % (path, st.st_size, limit))
            total = 0
            while True:
                data = os.read(fd, min(FS_CHUNK, limit + 1 - total))  # at most limit + 1 in all: growth shows
                if not data:
                    break
                total += len(data)
                if total > limit:
                    raise FsError('TOO_LARGE', '"%s" grew to more than the limit of %d bytes while it was read.' % (path, limit))
                while self.channel.queued > FS_QUEUED_MAX:  # no more than a few MiB waiting for the host
                    time.sleep(0.002)
                self.channel.send({'type': 'fs-data', 'id': mid, 'data': base64.b64encode(data).decode('ascii')})
            self.channel.send({'type': 'fs-done', 'id': mid, 'size': total})
        except OSError as exc:
            raise fs_errno_error(exc, path) from None
        finally:
            os.close(fd)

    def write(self, mid, msg):
        last = msg.get('last') is True
        if mid in self.failed:  # a chunk of a write that already failed (and was answered)
            if last:
                del self.failed[mid]
            return
        state = self.writes.get(mid)
        try:
            data = msg.get('data', '')
            if not isinstance(data, str):
                raise FsError('IO', 'The request\'s data must be a base64 string.')
            try:
                data = base64.b64decode(data, validate=True)
            except ValueError:
                raise FsError('IO', 'The request\'s data is not valid base64.') from None
            if state is None:
                if len(self.writes) >= FS_MAX_WRITES:
                    raise FsError('IO', 'Too many writes in progress.')
                parts = fs_path_parts(msg.get('path'), False)
                fd = self.create(parts, msg.get('append') is True)
                try:
                    start = os.fstat(fd).st_size
                except OSError:
                    start = None
                state = self.writes[mid] = (fd, '/'.join(parts), start)
            fd, path, _ = state
            try:
                write_all(fd, data)
                size = os.fstat(fd).st_size if last else None
            except OSError as exc:
                raise fs_errno_error(exc, path) from None
            if last:
                del self.writes[mid]
                os.close(fd)
                self.channel.send({'type': 'fs-done', 'id': mid, 'size': size})
        except FsError:
            if state is not None:  # the file goes back to its size when opened: a full disk is not left full
                del self.writes[mid]
                fd, _, start = state
                if start is not None:
                    try:
                        os.ftruncate(fd, start)
                    except OSError:
                        pass
                os.close(fd)
            if not last:
                self.failed[mid] = True
                while len(self.failed) > 1000:
                    del self.failed[next(iter(self.failed))]
            raise

    def create(self, parts, append):
        """Open (create) the file `parts` for writing: parents made as needed, truncated unless `append`."""
        path = '/'.join(parts)
        dir_fd = self.open_dirs(parts[:-1], create=True)
        name, mode = parts[-1], os.O_APPEND if append else 0
        try:
            for _ in range(5):  # O_EXCL first: a file made here gets exactly 0644 whatever the umask
                try:
                    fd = os.open(name, FS_WRITE_FLAGS | os.O_CREAT | os.O_EXCL | mode, 0o644, dir_fd=dir_fd)
                    try:
                        os.fchmod(fd, 0o644)
                    except OSError:
                        pass
                    break
                except FileExistsError:
                    pass
                except OSError as exc:
                    raise fs_error(exc, dir_fd, name, path) from None
                try:
                    fd = os.open(name, FS_WRITE_FLAGS | (mode or os.O_TRUNC), dir_fd=dir_fd)
                    break
                except FileNotFoundError:
                    continue  # removed meanwhile: create it
                except OSError as exc:
                    raise fs_error(exc, dir_fd, name, path) from None
            else:
                raise FsError('IO', '"%s" kept appearing and disappearing.' % path)
        finally:
            os.close(dir_fd)
        try:
            st = os.fstat(fd)
        except OSError as exc:
            os.close(fd)
            raise fs_errno_error(exc, path) from None
        if not stat.S_ISREG(st.st_mode):  # a FIFO with a reader, say
            os.close(fd)
            raise FsError('NOT_A_FILE', '"%s" exists and is not a regular file.' % path)
        return fd

    def list(self, mid, msg):
        parts = fs_path_parts(msg.get('path', ''), True)
        fd = self.open_dirs(parts)
        try:
            names, truncated = [], False
            with os.scandir(fd) as it:
                for entry in it:
                    if len(names) >= FS_MAX_NAMES:
                        truncated = True
                        break
                    names.append(entry.name)
            names.sort()
            truncated = truncated or len(names) > FS_MAX_LIST
            entries = []
            for name in names[:FS_MAX_LIST]:
                try:
                    st = os.stat(name, dir_fd=fd, follow_symlinks=False)
                except OSError:
                    continue  # removed meanwhile
                entries.append({'name': name, 'type': fs_kind(st.st_mode), 'size': st.st_size, 'mtime': st.st_mtime})
        except OSError as exc:
            raise fs_errno_error(exc, '/'.join(parts) or 'the workspace') from None
        finally:
            os.close(fd)
        self.channel.send({'type': 'fs-list', 'id': mid, 'entries': entries, 'truncated': truncated})

    def usage(self, mid):
        fd = self.open_root()
        try:
            vfs = os.fstatvfs(fd)
            file_bytes = self.file_bytes(fd)
        except OSError as exc:
            raise fs_errno_error(exc, 'the workspace') from None
        finally:
            os.close(fd)
        self.channel.send({'type': 'fs-usage', 'id': mid, 'usedBytes': (vfs.f_blocks - vfs.f_bfree) * vfs.f_frsize,
                           'totalBytes': vfs.f_blocks * vfs.f_frsize, 'freeBytes': vfs.f_bavail * vfs.f_frsize,
                           'fileBytes': file_bytes})

    @staticmethod
    def file_bytes(root_fd):
        """Total size of the regular files under `root_fd`, walked without following links (descriptors
        kept open down the current path only), counting at most FS_MAX_USAGE_ENTRIES entries."""
        total, seen = 0, 0
        stack = []  # (fd, names of the subdirectories still to visit)
        fd = os.dup(root_fd)
        try:
            while True:
                if fd is not None:
                    subdirs = []
                    try:
                        with os.scandir(fd) as it:
                            for entry in it:
                                seen += 1
                                if seen > FS_MAX_USAGE_ENTRIES:
                                    os.close(fd)
                                    return total
                                try:
                                    if entry.is_file(follow_symlinks=False):
                                        total += entry.stat(follow_symlinks=False).st_size
                                    elif entry.is_dir(follow_symlinks=False):
                                        subdirs.append(entry.name)
                                except OSError:
                                    pass
                    except OSError:
                        subdirs = []
                    stack.append((fd, subdirs))
                    fd = None
                if not stack:
                    return total
                top, subdirs = stack[-1]
                if not subdirs or len(stack) >= FS_MAX_DEPTH:
                    os.close(top)
                    stack.pop()
                    continue
                try:
                    fd = os.open(subdirs.pop(), FS_DIR_FLAGS, dir_fd=top)
                except OSError:
                    fd = None
        finally:
            for top, _ in stack:
                os.close(top)


class Agent:
    """Runs executions one at a time in the main thread, in one persistent `__main__` namespace."""

    def __init__(self, channel, pumps, devnull):
        self.channel, self.pumps, self.devnull = channel, pumps, devnull
        self.requests = queue.Queue()
        self.running = None  # id of the execution whose user code is running (interrupt target)
        self.current = None  # id of the execution being handled (display messages are tagged with it)
        self.accepted = set()  # ids of executions queued or being handled
        self.cancelled = set()  # ids interrupted before their code started
        self.emit_lock = threading.Lock()  # no display after done
        self.sync_lock = threading.Lock()
        self.cells = 0
        self.loop = None
        self.workspace = os.environ.get('SANDPIT_WORKSPACE') or '/workspace'
        # kill(-1) is only safe inside the container: opt-in (set in the image) and only under an init (or as init)
        self.may_kill_strays = os.environ.get('SANDPIT_KILL_STRAYS') == '1' and 1 in (os.getpid(), os.getppid())
        self.bash = os.environ.get('SANDPIT_LANGUAGE') == 'bash'
        self.fs = WorkspaceFs(self.workspace, channel, self.may_kill_strays)
        self.oom = OomCounter()
        self.oom_before = 0
        module = types.ModuleType('__main__')
        module.__dict__.update(__builtins__=builtins, display=self.make_display())
        sys.modules['__main__'] = module  # so pickle and multiprocessing find user-defined names
        self.globals = module.__dict__
        self.show = self.make_show()
        sys.meta_path.insert(0, PyplotHook(self.show))
        sys.meta_path.insert(0, OwnImports(self, [p for p in sys.path if not self.in_workspace(p)]))
        os.register_at_fork(after_in_child=self.after_fork_child)

    def in_workspace(self, entry):
        """Whether an import path entry is (or is in) the workspace; '' and '.' are the working directory."""
        if entry in ('', '.'):
            return True
        full = os.path.abspath(entry)
        return full == self.workspace or full.startswith(self.workspace.rstrip('/') + '/')

    # -- requests (channel thread) --------------------------------------------------------------

    def on_message(self, msg):
        """Handle one request from the host (channel thread)."""
        kind, mid = msg.get('type'), msg.get('id')
        if not isinstance(mid, (str, int)):
            return
        if kind == 'hello':
            with FDS:  # bash_version() starts a process: the agent's descriptors, whatever user code holds
                language, version = ('bash', bash_version()) if self.bash else ('python', platform.python_version())
            self.channel.send({'type': 'hello', 'id': mid, 'language': language, 'version': version,
                               'pid': os.getpid(), 'protocol': PROTOCOL})
        elif kind == 'execute' and isinstance(msg.get('code'), str) and mid not in self.accepted:
            self.accepted.add(mid)
            self.requests.put(msg)
        elif kind == 'interrupt' and mid in self.accepted:
            self.cancelled.add(mid)  # seen by run_cell if the code has not started yet
            if mid == self.running:
                signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)  # EINTR for the main thread
        elif kind in ('fs', 'reap'):
            self.fs.submit(msg)  # served by the fs thread, in arrival order

    def after_fork_child(self):
        """In a child forked by user code: make the channel and the pipes' read ends unusable."""
        for fd in self.channel.private_fds() + [p.rfd for p in self.pumps]:
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
                if os.getpid() != AGENT_PID:
                    os._exit(1)
                log('execution failed: %s' % ''.join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
                self.channel.send({'type': 'error', 'id': msg['id'], 'name': 'AgentError', 'value': repr(exc),
                                   'traceback': 'AgentError: %r\n' % exc})
                self.finish(msg['id'], 'error', 0.0, None, 0)

    def execute(self, msg):
        """Handle one `execute` request, from the first output to `done`."""
        eid, limit = msg['id'], msg.get('outputLimit')
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
            limit = DEFAULT_LIMIT
        self.cells += 1
        filename = '<cell-%d>' % self.cells
        self.restore_stdio()
        importlib.invalidate_caches()  # packages installed since the last run are importable at once
        before, _ = snapshot_files(self.workspace)
        if self.may_kill_strays:
            forget_dead_multiprocessing_helpers()  # killed after an earlier execution, or by a `reap`
        self.oom_before = self.oom.count()
        self.current = eid
        for pump in self.pumps:
            pump.begin(eid, limit)
        started = time.perf_counter()
        exit_code = None
        if self.bash:
            status, exit_code, exc = self.interruptible(eid, lambda: self.run_command(eid, msg['code']))
            text = None
            if status == 'ok' and exit_code != 0:
                status = 'error'
        else:
            status, text, exc = self.interruptible(eid, lambda: self.run_cell(eid, msg['code'], filename))
        duration = (time.perf_counter() - started) * 1000
        synced = self.sync()
        report = None  # the result or error message, sent with `done` when nothing comes between them
        if exc is not None and not (self.bash and isinstance(exc, KeyboardInterrupt)):
            report = self.error_message(eid, exc, limit)
        elif text is not None:
            report = {'type': 'result', 'id': eid, 'text': clip(text, limit)}
        elif exit_code:
            report = {'type': 'error', 'id': eid, 'name': 'CommandFailed', 'value': 'exit code %d' % exit_code,
                      'traceback': ''}
        exc = None  # let the traceback's frames go
        if 'matplotlib.pyplot' in sys.modules:
            if report is not None:
                self.channel.send(report)  # before the figures show() sends
                report = None
            if self.interruptible(eid, self.show)[0] == 'interrupted':
                status = 'interrupted'
        strays = 0
        # No process outlives the execution that started it (a background process would print into later
        # executions, or hold pids and memory): once its output is synced, every other process is killed.
        if self.may_kill_strays:
            strays = kill_strays()
        # a second sync only if the first timed out, or pyplot.show() or killed strays may have written since
        drain = not synced or 'matplotlib.pyplot' in sys.modules or strays > 0
        self.finish(eid, status, duration, before, strays, drain, report, exit_code)

    def finish(self, eid, status, duration, before, strays, drain=True, report=None, exit_code=None):
        """Drain the pipes (unless the caller just did), then send `report` (if any) and `done` with the
        files the execution changed."""
        if drain:
            if report is not None:
                self.channel.send(report)
                report = None
            self.sync()
        dropped = {pump.stream: pump.end() for pump in self.pumps}
        with self.emit_lock:
            self.current = None
        self.accepted.discard(eid)
        self.cancelled.discard(eid)
        after, complete = snapshot_files(self.workspace) if before is not None else ({}, True)
        changed = sorted(path for path, sig in after.items() if before.get(path) != sig)
        done = {'type': 'done', 'id': eid, 'status': status, 'durationMs': round(duration, 3), 'dropped': dropped,
                'files': [{'path': p, 'size': after[p][0]} for p in changed[:MAX_FILES]],
                'filesTruncated': len(changed) > MAX_FILES or not complete, 'straysKilled': strays}
        if exit_code is not None:
            done['exitCode'] = exit_code
        oom_kills = self.oom.count() - self.oom_before
        if oom_kills > 0:
            done['oomKills'] = oom_kills
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
        if os.getpid() != AGENT_PID:
            exit_forked_child(outcome)
        return outcome

    def run_cell(self, eid, source, filename):
        """Execute a cell; returns the repr of its last expression, or None."""
        if eid in self.cancelled:
            raise KeyboardInterrupt
        lines = source.replace('\r\n', '\n').replace('\r', '\n').split('\n')
        linecache.cache[filename] = (len(source), None, [line + '\n' for line in lines], filename)
        flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
        tree = compile(source, filename, 'exec', flags | ast.PyCF_ONLY_AST, dont_inherit=True)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        if tree.body:  # a cell that is one expression needs no statements compiled
            self.evaluate(compile(tree, filename, 'exec', flags, dont_inherit=True))
        if last is None:
            return None
        value = self.evaluate(compile(ast.Expression(last.value), filename, 'eval', flags, dont_inherit=True))
        rest = lines[last.end_lineno - 1].encode('utf-8')[last.end_col_offset:]
        if value is None or rest.lstrip().startswith(b';'):  # a trailing ';' hides the value, as in IPython
            return None
        self.globals['_'] = value
        return repr(value)

    def run_command(self, eid, command):
        """bash mode: run `command` with `bash -c` in the workspace, in a process group of its own, its
        output on fds 1/2; returns its exit code (128 + n when signal n ended it). An interrupt kills
        the whole group at once (SIGKILL: a shell may ignore SIGINT)."""
        if eid in self.cancelled:
            raise KeyboardInterrupt
        proc = subprocess.Popen(['bash', '-c', command], stdin=self.devnull, cwd=self.workspace,
                                start_new_session=True, close_fds=True)
        try:
            code = proc.wait()
        except KeyboardInterrupt:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
            try:
                proc.wait(timeout=5)
            except BaseException:  # a second interrupt, or a process stuck in the kernel: strays are killed later
                pass
            raise
        try:  # the rest of its group (background jobs); processes that left the group are strays
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        return 128 - code if code < 0 else code

    def evaluate(self, code):
        """eval() a code object in the user namespace, awaiting it when it uses top-level await."""
        value = eval(code, self.globals)
        if code.co_flags & CO_COROUTINE:
            import asyncio

            if self.loop is None or self.loop.is_closed():
                self.loop = asyncio.new_event_loop()
            value = self.loop.run_until_complete(value)
        return value

    def error_message(self, eid, exc, limit):
        """The `error` message for an exception raised by user code."""
        tb = exc.__traceback__ = clean_traceback(exc.__traceback__)
        try:
            value = str(exc)
        except Exception:
            value = '<exception str() failed>'
        try:
            text = ''.join(traceback.format_exception(type(exc), exc, tb))
        except Exception:
            text = '%s: %s\n' % (type(exc).__name__, value)
        return {'type': 'error', 'id': eid, 'name': type(exc).__name__, 'value': clip(value, limit),
                'traceback': clip(text, limit)}

    def restore_stdio(self):
        """Undo what the previous execution may have done to fds 0/1/2 and sys.stdout/err."""
        os.dup2(self.devnull, 0)
        for pump in self.pumps:
            pump.rebind()
        if getattr(sys.stdout, 'closed', True):
            sys.stdout = text_stream(1)
        if getattr(sys.stderr, 'closed', True):
            sys.stderr = text_stream(2)

    # -- output ordering and rich output --------------------------------------------------------

    def sync(self):
        """Return once the pumps have forwarded everything written to fds 1/2 so far (or after a timeout);
        returns whether they did. A pump waiting for data with an empty pipe needs no sync marker."""
        if os.getpid() != AGENT_PID:
            return True
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        with self.sync_lock:
            pending = [pump for pump in self.pumps if not pump.settled()]
            if not pending:
                return True
            marker = b'\x00\x1b[sandpit-sync:' + os.urandom(12).hex().encode('ascii') + b']\x00'
            armed = [pump for pump in pending if pump.arm(marker)]
            complete = len(armed) == len(pending)
            deadline = time.monotonic() + SYNC_TIMEOUT
            for pump in armed:
                if not pump.hit.wait(max(deadline - time.monotonic(), 0)):
                    pump.disarm()
                    complete = False
            return complete

    def emit_display(self, mime, data, encoding):
        """Send rich output after the text output written before it."""
        if os.getpid() != AGENT_PID or self.current is None:
            return
        self.sync()
        with self.emit_lock:
            if self.current is not None:
                self.channel.send({'type': 'display', 'id': self.current, 'mime': mime, 'data': data,
                                   'encoding': encoding})

    def make_display(self):
        """The display() function injected into the user namespace."""
        agent = self

        def display(*objs):
            """Show objects: PNG/SVG/HTML for objects with _repr_png_/_repr_svg_/_repr_html_ and
            matplotlib figures, else their repr() on stdout."""
            for obj in objs:
                mime, data, encoding = rich_repr(obj)
                if mime is None:
                    print(repr(obj))
                else:
                    agent.emit_display(mime, data, encoding)

        return display

    def make_show(self):
        """The replacement for matplotlib.pyplot.show()."""
        agent = self

        def show(*_args, **_kwargs):
            """Sandpit's matplotlib.pyplot.show(): send every open figure as PNG, then close them."""
            plt = sys.modules.get('matplotlib.pyplot')
            if plt is None:
                return
            for num in plt.get_fignums():
                try:
                    png = figure_png(plt.figure(num))
                except Exception as exc:
                    print('Could not render figure %s: %s: %s' % (num, type(exc).__name__, exc), file=sys.stderr)
                    continue
                agent.emit_display('image/png', png, 'base64')
            plt.close('all')

        return show


def main():
    """Move the protocol fds aside, capture fds 0/1/2, start the channel and serve executions."""
    global LOG_FD
    spec = os.environ.get('SANDPIT_CHANNEL') or 'stdio'
    if spec != 'stdio' and not (spec.startswith('socket:') and len(spec) > len('socket:')):
        log('unsupported SANDPIT_CHANNEL %r' % spec)
        sys.exit(2)
    LOG_FD = os.dup(2)
    channel = Channel(spec)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    pumps = [Pump('stdout', 1, channel.send), Pump('stderr', 2, channel.send)]
    sys.stdout = sys.__stdout__ = text_stream(1)
    sys.stderr = sys.__stderr__ = text_stream(2)
    if sys.path and sys.path[0] == os.path.dirname(AGENT_FILE):
        sys.path[0] = ''  # like an interactive interpreter: import from the working directory
    agent = Agent(channel, pumps, devnull)
    for pump in pumps:
        pump.start()
    agent.fs.start()
    channel.start(agent.on_message)
    agent.serve_forever()


if __name__ == '__main__':
    main()
