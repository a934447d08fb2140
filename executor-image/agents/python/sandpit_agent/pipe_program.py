"""The `pipe` fs operation (see PROTOCOL.md): a program of the image run for the host as the sandbox user, its
stdin and stdout on a unix socket the host listens on in the agent's folder. A workspace's bulk bytes (a
snapshot's tar stream, a restore's) go straight from the program to the host: not through the engine's exec
stream, not base64 in JSON lines on the channel."""

import os
import re
import socket
import subprocess

PIPE_SOCKET = re.compile(r'[a-z0-9-]{1,40}\.sock\Z')
PIPE_TOKEN = re.compile(r'[a-f0-9]{32,128}\Z')
PIPE_PATH = ('/usr/bin', '/bin')  # where the program is looked up (never the PATH user code may have changed)
# The program's whole environment: nothing user code set in the agent's (TAR_OPTIONS, LD_PRELOAD …) reaches it,
# and its messages are in English (the host reads tar's warnings).
PIPE_ENV = {'PATH': '/usr/bin:/bin', 'LC_ALL': 'C'}
PIPE_MAX_ARGS = 256
PIPE_MAX_ARG_BYTES = 1 << 16
PIPE_CONNECT_TIMEOUT = 10.0


class PipeRefused(Exception):
    """A `pipe` request that cannot run (its message is for a person)."""


def pipe_dir(channel_spec):
    """The folder shared with the host that the host's sockets are in (that of the agent's own socket), or
    None on the stdio channel."""
    if channel_spec.startswith('socket:'):
        return os.path.dirname(channel_spec[len('socket:'):]) or None
    return None


def program_path(name):
    """The program `name` (a bare name) in PIPE_PATH, or PipeRefused."""
    if not isinstance(name, str) or not name or '/' in name or '\0' in name:
        raise PipeRefused('The program must be a bare name.')
    for folder in PIPE_PATH:
        path = os.path.join(folder, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise PipeRefused('There is no program %r in %s.' % (name[:100], ':'.join(PIPE_PATH)))


def checked_argv(argv):
    if not isinstance(argv, list) or not 1 <= len(argv) <= PIPE_MAX_ARGS:
        raise PipeRefused('argv must be a list of 1 to %d strings.' % PIPE_MAX_ARGS)
    for arg in argv:
        if not isinstance(arg, str) or '\0' in arg or len(arg.encode('utf-8', 'replace')) > PIPE_MAX_ARG_BYTES:
            raise PipeRefused('Every argument must be a string without NUL, at most %d bytes.' % PIPE_MAX_ARG_BYTES)
    return argv


def run_pipe(folder, root, msg, max_stderr):
    """Runs msg['argv'] in `root` with stdin (msg['stdin']) and stdout (msg['stdout']) on a connection to the
    host's socket msg['socket'] in `folder`, which first gets msg['token'] (so the host knows it is this agent,
    not some other process of the sandbox). Returns (exit code, the first `max_stderr` bytes of stderr)."""
    if folder is None:
        raise PipeRefused('This agent shares no folder with the host (stdio channel).')
    argv = checked_argv(msg.get('argv'))
    name, token = msg.get('socket'), msg.get('token')
    if not isinstance(name, str) or not PIPE_SOCKET.match(name):
        raise PipeRefused('The socket must be a name like "pipe-1.sock" in the agent folder.')
    if not isinstance(token, str) or not PIPE_TOKEN.match(token):
        raise PipeRefused('The token must be 32 to 128 hex digits.')
    program = program_path(argv[0])
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.settimeout(PIPE_CONNECT_TIMEOUT)
        conn.connect(os.path.join(folder, name))
        conn.settimeout(None)
        conn.sendall(token.encode('ascii') + b'\n')
        # The program gets the connection as stdin and/or stdout; the agent's own copy is closed once it runs.
        # Its argv[0] stays the bare name (its messages start with it: "tar: …").
        proc = subprocess.Popen(
            argv, executable=program, cwd=root, env=PIPE_ENV, close_fds=True,
            stdin=conn.fileno() if msg.get('stdin') is True else subprocess.DEVNULL,
            stdout=conn.fileno() if msg.get('stdout') is True else subprocess.DEVNULL,
            stderr=subprocess.PIPE)
    finally:
        conn.close()
    kept, size = [], 0
    with proc.stderr:
        while True:
            chunk = proc.stderr.read(65536)
            if not chunk:
                break
            if size < max_stderr:
                kept.append(chunk[:max_stderr - size])
                size += len(kept[-1])
    code = proc.wait()
    return code, b''.join(kept).decode('utf-8', 'replace')
