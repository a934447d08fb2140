"""Workspace files for the host (`fs` and `reap` requests, see PROTOCOL.md)."""

import base64
import errno
import os
import queue
import stat
import threading
import time
import traceback

from .fd_io import write_all
from .fd_reserve import FDS
from .log import log
from .pipe_program import PipeRefused, pipe_dir, run_pipe
from .processes import kill_strays
from . import protocol


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
        self.pipe_folder = pipe_dir(channel.spec)  # where the host's `pipe` sockets are (None: stdio channel)
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
                self.channel.send(protocol.reaped(mid, kill_strays() if self.may_kill_strays else 0))
            else:
                self.handle(mid, msg)
        except FsError as err:
            self.channel.send(protocol.fs_error(mid, err.code, err.message))
        except Exception as exc:  # an agent bug: answer, and keep serving
            log('fs request failed: %s' % ''.join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
            self.channel.send(protocol.fs_error(mid, 'IO', 'Internal error: %r' % exc))

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
        elif op == 'pipe':
            self.pipe(mid, msg)
        else:
            raise FsError('IO', 'Unknown fs operation %r.' % (op,))

    def pipe(self, mid, msg):
        """Run a program of the image for the host, its bytes through the host's socket (pipe_program.py)."""
        max_stderr = msg.get('maxStderr')
        if not isinstance(max_stderr, int) or isinstance(max_stderr, bool) or not 0 <= max_stderr <= FS_CHUNK:
            max_stderr = 65536
        try:
            code, err = run_pipe(self.pipe_folder, self.root, msg, max_stderr)
        except PipeRefused as exc:
            raise FsError('IO', str(exc)) from None
        except OSError as exc:
            raise FsError('IO', 'The program could not be run: %s.' % (exc.strerror or exc)) from None
        self.channel.send(protocol.fs_exit(mid, code, err))

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
                self.channel.send(protocol.fs_data(mid, base64.b64encode(data).decode('ascii')))
            self.channel.send(protocol.fs_done(mid, total))
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
                self.channel.send(protocol.fs_done(mid, size))
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
        self.channel.send(protocol.fs_list(mid, entries, truncated))

    def usage(self, mid):
        fd = self.open_root()
        try:
            vfs = os.fstatvfs(fd)
            file_bytes = self.file_bytes(fd)
        except OSError as exc:
            raise fs_errno_error(exc, 'the workspace') from None
        finally:
            os.close(fd)
        self.channel.send(protocol.fs_usage(mid, (vfs.f_blocks - vfs.f_bfree) * vfs.f_frsize, vfs.f_blocks * vfs.f_frsize,
                                              vfs.f_bavail * vfs.f_frsize, file_bytes))

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
