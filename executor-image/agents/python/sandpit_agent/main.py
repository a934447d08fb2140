"""The agent's start: move the protocol fds aside, capture fds 0/1/2, start the channel, serve executions.

Every module of the package is imported here, before the working directory (the workspace) joins the import
path: nothing of the agent is ever looked up there."""

import os
import sys

from .channel import Channel
from .executor import Agent
from .fd_io import text_stream
from .log import log, set_log_fd
from .own_process import ENTRY_DIR
from .stdio_capture import StdioCapture


def main():
    """Move the protocol fds aside, capture fds 0/1/2, start the channel and serve executions."""
    spec = os.environ.get('SANDPIT_CHANNEL') or 'stdio'
    if spec != 'stdio' and not (spec.startswith('socket:') and len(spec) > len('socket:')):
        log('unsupported SANDPIT_CHANNEL %r' % spec)
        sys.exit(2)
    set_log_fd(os.dup(2))
    channel = Channel(spec)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    capture = StdioCapture(channel.send, devnull)
    sys.stdout = sys.__stdout__ = text_stream(1)
    sys.stderr = sys.__stderr__ = text_stream(2)
    if sys.path and os.path.realpath(sys.path[0]) == os.path.realpath(ENTRY_DIR):
        sys.path[0] = ''  # like an interactive interpreter: import from the working directory
    agent = Agent(channel, capture, devnull)
    capture.start()
    agent.fs.start()
    channel.start(agent.on_message)
    agent.serve_forever()
