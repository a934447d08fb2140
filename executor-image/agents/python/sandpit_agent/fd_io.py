"""Writing to file descriptors: all of the bytes, and text streams for sys.stdout / sys.stderr."""

import io
import os


def write_all(fd, data):
    """Write every byte of `data` to `fd`."""
    view = memoryview(data).cast('B')
    while view:
        view = view[os.write(fd, view):]


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
