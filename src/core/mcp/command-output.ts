import { z } from 'zod';
import type { CommandResult } from '../../shared/domain/packages';
import type { ToolOutput } from './tool-output';
import { formatDuration } from './tool-fields';

/** What run_command returns (snake_case view of the contract's CommandResult). */
export const commandOutputShape = {
  session_id: z.string().describe('Session it ran in'),
  exit_code: z.number().int().describe('Exit status (0 = success; 137 when killed)'),
  stdout: z.string().describe('Standard output'),
  stderr: z.string().describe('Standard error'),
  timed_out: z.boolean().describe('Whether it was killed at the time limit'),
  duration_ms: z.number().describe('How long it took'),
};
export type CommandOutput = z.infer<z.ZodObject<typeof commandOutputShape>>;

export function toCommandOutput(r: CommandResult): CommandOutput {
  return { session_id: r.sessionId, exit_code: r.exitCode, stdout: r.stdout, stderr: r.stderr, timed_out: r.timedOut, duration_ms: r.durationMs };
}

/** A finished command as a tool result: its exit code, then stdout and stderr where they have something. */
export function commandToolOutput(r: CommandResult): ToolOutput<CommandOutput> {
  const head = `exit code ${r.exitCode}${r.timedOut ? ' (timed out)' : ''} in ${formatDuration(r.durationMs)} (session ${r.sessionId})`;
  const text = [head, r.stdout ? `stdout:\n${r.stdout.replace(/\n$/, '')}` : '', r.stderr ? `stderr:\n${r.stderr.replace(/\n$/, '')}` : '']
    .filter(Boolean)
    .join('\n');
  return { structured: toCommandOutput(r), text };
}
