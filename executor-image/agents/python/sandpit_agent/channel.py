"""The channel to the host: JSON lines on the original stdin/stdout, or on a unix socket (one connection at a
time). Only the agent's own pid ever writes on it."""

import io
import json
import os
import queue
import select
import socket
import threading
import time

from .fd_io import write_all
from .fd_reserve import FDS
from .limits import WRITE_BATCH
from .log import log
from .own_process import is_agent


def unconnected_exit_seconds():
    """SANDPIT_UNCONNECTED_EXIT_S: how long the agent lives with no host connected (0 or unset: for ever)."""
    try:
        return max(0, int(os.environ.get('SANDPIT_UNCONNECTED_EXIT_S') or 0))
    except ValueError:
        return 0


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
        self.exit_after = unconnected_exit_seconds()
        self.connections = 0  # counts connections made, so a timer armed for an older gap does nothing
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
        if is_agent():
            self._queue(self.encode(msg))

    def send_now(self, msgs):
        """Send messages from the calling thread when nothing queued is still unwritten, else queue them.
        Only for the main thread outside user code (a KeyboardInterrupt must not cut a write short)."""
        if not is_agent():
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
                self.connections += 1
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
                self._exit_unless_connected()
            conn.close()

    def _exit_unless_connected(self):
        """No host now (self.lock held): the agent ends if none connects within SANDPIT_UNCONNECTED_EXIT_S seconds
        (a warm sandbox left for a next Sandpit that never came)."""
        if self.exit_after <= 0:
            return
        gap = self.connections

        def end():
            with self.lock:
                if self.conn is None and self.connections == gap:
                    log('no host connected for %d s: exiting' % self.exit_after)
                    os._exit(0)

        timer = threading.Timer(self.exit_after, end)
        timer.daemon = True
        timer.start()
