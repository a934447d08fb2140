"""fd-level capture of user code's output: the pipes behind fds 1 and 2, the threads that forward what they
read as `stream` messages, and the sync that makes sure everything written so far has been forwarded."""

import codecs
import fcntl
import os
import select
import sys
import termios
import threading
import time

from .fd_io import text_stream, write_all
from .limits import COALESCE, READ_SIZE, SYNC_TIMEOUT
from .own_process import is_agent
from .protocol import stream_message


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
            self.send(stream_message(self.eid, self.stream, text))


class StdioCapture:
    """User code's fds 0/1/2: /dev/null and the two pumps' pipes."""

    def __init__(self, send, devnull):
        self.devnull = devnull
        self.pumps = [Pump('stdout', 1, send), Pump('stderr', 2, send)]
        self.sync_lock = threading.Lock()

    def start(self):
        for pump in self.pumps:
            pump.start()

    def private_fds(self):
        """The pipes' read ends (a forked child must not be able to use them)."""
        return [pump.rfd for pump in self.pumps]

    def begin(self, eid, limit):
        for pump in self.pumps:
            pump.begin(eid, limit)

    def end(self):
        """Stop forwarding for the current execution; returns the dropped byte counts by stream."""
        return {pump.stream: pump.end() for pump in self.pumps}

    def restore(self):
        """Undo what the previous execution may have done to fds 0/1/2 and sys.stdout/err."""
        os.dup2(self.devnull, 0)
        for pump in self.pumps:
            pump.rebind()
        if getattr(sys.stdout, 'closed', True):
            sys.stdout = text_stream(1)
        if getattr(sys.stderr, 'closed', True):
            sys.stderr = text_stream(2)

    def sync(self):
        """Return once the pumps have forwarded everything written to fds 1/2 so far (or after a timeout);
        returns whether they did. A pump waiting for data with an empty pipe needs no sync marker."""
        if not is_agent():
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
