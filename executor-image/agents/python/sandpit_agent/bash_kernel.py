"""bash mode (SANDPIT_LANGUAGE=bash): each execution is a one-shot `bash -c` in the workspace."""

import os
import signal
import subprocess

from .errors import error_report
from .protocol import error_message


def bash_version():
    """The version of the bash that bash sessions run, or 'unknown'."""
    try:
        out = subprocess.run(['bash', '-c', 'echo "$BASH_VERSION"'], stdin=subprocess.DEVNULL, capture_output=True,
                             timeout=5, check=False).stdout
        return out.decode('ascii', 'replace').strip() or 'unknown'
    except (OSError, subprocess.SubprocessError):
        return 'unknown'


class BashKernel:
    """Runs each execution's code as a one-shot `bash -c` in the workspace; nothing but files persists."""

    language = 'bash'

    def __init__(self, workspace, devnull):
        self.workspace, self.devnull = workspace, devnull

    def version(self):
        return bash_version()

    def run(self, eid, command, cancelled):
        """Run `command` with `bash -c` in the workspace, in a process group of its own, its output on fds
        1/2; returns its exit code (128 + n when signal n ended it). An interrupt kills the whole group at
        once (SIGKILL: a shell may ignore SIGINT)."""
        if eid in cancelled:
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

    @staticmethod
    def outcome(eid, status, exit_code, exc, limit):
        """(status, the error message or None, exitCode) of a finished command: a non-zero exit code is an
        error (CommandFailed); an interrupt is no error message, only the status."""
        if status == 'ok' and exit_code != 0:
            status = 'error'
        report = None
        if exc is not None and not isinstance(exc, KeyboardInterrupt):
            report = error_report(eid, exc, limit)
        elif exit_code:
            report = error_message(eid, 'CommandFailed', 'exit code %d' % exit_code, '')
        return status, report, exit_code
