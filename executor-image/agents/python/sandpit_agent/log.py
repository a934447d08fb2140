"""Diagnostics about the agent itself, on the original stderr (never the channel)."""

import os

_log_fd = [2]  # main() points it at a copy of the original stderr before fd 2 becomes a capture pipe


def set_log_fd(fd):
    _log_fd[0] = fd


def log(text):
    """Write a diagnostic about the agent itself to the original stderr (never the channel)."""
    try:
        os.write(_log_fd[0], ('sandpit-agent: %s\n' % text).encode('utf-8', 'replace'))
    except OSError:
        pass
