#!/usr/bin/env python3
"""Sandpit's in-container Python agent (protocol 1, see ../PROTOCOL.md): the entry; the agent itself is the
package beside it (sandpit_agent/, one module per role).

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

Standard library only; Python >= 3.9. Runs as `python3 -s agent.py` (never `-m`: that would put the working
directory, the workspace, first on the import path while the agent's own modules load). This script's
directory is sys.path[0] while the package is imported; main() then replaces it with the working directory.
"""

from sandpit_agent.main import main

if __name__ == '__main__':
    main()
