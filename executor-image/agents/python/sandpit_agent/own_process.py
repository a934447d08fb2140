"""Which process is the agent, and which files are its own (their frames are hidden from users)."""

import os

AGENT_PID = os.getpid()  # a child forked by user code has another pid: it never speaks for the agent
PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
ENTRY_DIR = os.path.dirname(PACKAGE_DIR)  # where the entry script (agent.py) lives


def is_agent():
    """Whether the calling process is the agent itself (not a child forked by user code)."""
    return os.getpid() == AGENT_PID


def is_agent_file(filename):
    """Whether a code object's filename is one of the agent's own modules or its entry script."""
    return filename.startswith(PACKAGE_DIR + os.sep) or filename == os.path.join(ENTRY_DIR, 'agent.py')
