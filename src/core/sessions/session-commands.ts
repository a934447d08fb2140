import { toErrorBody } from '../../shared/api/errors';
import type { StreamName } from '../../shared/domain/execution';
import type { CommandResult } from '../../shared/domain/packages';
import type { Logger } from '../log';
import { WORKSPACE_DIR } from '../sandbox/sandbox-paths';
import type { SandboxDriver } from './sandbox-driver';

/** Asks the agent to stop every process but itself (what a command left behind); a dead agent has none to stop. */
async function reapLeftovers(runtime: SandboxDriver, log: Logger): Promise<void> {
  try {
    const killed = await runtime.request((id) => [{ type: 'reap', id }], (reply) => (reply.type === 'reaped' ? reply.killed : undefined), 10_000, 'stopping leftover processes');
    if (killed > 0) log.info('stopped processes a command left behind', { killed });
  } catch (error) {
    log.warn('could not stop what a command left behind', { error: toErrorBody(error).message });
  }
}

/**
 * A shell command (`sh -c`) in /workspace, killed inside the sandbox at its time limit (run inside the session's job);
 * `onOutput` is told its output as it comes (a background command's get_run, a foreground one's progress).
 */
export async function runShellCommand(
  runtime: SandboxDriver,
  log: Logger,
  sessionId: string,
  command: string,
  limitMs: number,
  maxOutputBytes: number,
  onOutput?: (stream: StreamName, text: string) => void,
): Promise<CommandResult> {
  const started = Date.now();
  const seconds = Math.max(1, Math.ceil(limitMs / 1000));
  // `timeout -s KILL` ends the command inside the sandbox: killing an exec client would not.
  const r = await runtime.sandbox.exec(['timeout', '-s', 'KILL', String(seconds), 'sh', '-c', command], {
    workingDir: WORKSPACE_DIR,
    timeoutMs: limitMs + 10_000,
    maxOutputBytes,
    ...(onOutput ? { onOutput } : {}),
  });
  const timedOut = r.timedOut || (r.exitCode === 137 && Date.now() - started >= limitMs - 50);
  // Nothing the command started outlives it (as with runs): whatever it left is stopped now.
  await reapLeftovers(runtime, log);
  return { sessionId, exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr, timedOut, durationMs: Date.now() - started };
}

/**
 * Stops a command under way. Each command runs under `timeout`, which leads its own process group: a TERM to
 * it goes to the whole group, so the command and what it started end, and the command's own end then stops
 * whatever is left.
 */
export async function stopShellCommands(runtime: SandboxDriver): Promise<void> {
  const script = `for d in /proc/[0-9]*; do c=$(tr '\\0' ' ' < "$d/cmdline" 2>/dev/null); case "$c" in "timeout -s KILL "*" sh -c "*) kill -TERM "\${d#/proc/}" 2>/dev/null;; esac; done; true`;
  await runtime.sandbox.exec(['sh', '-c', script], { workingDir: WORKSPACE_DIR, timeoutMs: 10_000, maxOutputBytes: 4_096 });
}
