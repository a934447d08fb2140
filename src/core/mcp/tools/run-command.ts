import { z } from 'zod';
import { defineTool } from '../define-tool';
import { charLimit, TOOL_INPUT_LIMITS } from '../mcp-limits';
import { withProgress } from '../progress-ticker';
import { formatDuration, secondsToMs, sessionIdField } from '../tool-fields';

export const runCommand = defineTool({
  name: 'run_command',
  title: 'Run a shell command',
  description:
    'Runs a shell command (sh -c) in the session\'s /workspace, e.g. "ls -la" or "python3 script.py arg", and returns its exit code, stdout and stderr. ' +
    'The sandbox has no network.',
  input: {
    command: z
      .string()
      .min(1)
      .max(TOOL_INPUT_LIMITS.commandChars)
      .describe(`The command line, run with sh -c in /workspace; ${charLimit(TOOL_INPUT_LIMITS.commandChars)}.`),
    session_id: sessionIdField,
    timeout_seconds: z
      .number()
      .min(0.1)
      .max(3_600)
      .optional()
      .describe('Kill the command after this many seconds (default: the session limit, usually 60).'),
  },
  output: {
    session_id: z.string().describe('Session it ran in'),
    exit_code: z.number().int().describe('Exit status (0 = success; 137 when killed)'),
    stdout: z.string().describe('Standard output'),
    stderr: z.string().describe('Standard error'),
    timed_out: z.boolean().describe('Whether it was killed at the time limit'),
    duration_ms: z.number().describe('How long it took'),
  },
  // Any command may delete or overwrite files in the session (never outside it); no network.
  hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  run: async (args, kit, extra) => {
    const r = await withProgress(extra, 'running the command', kit.log, () =>
      kit.call('sessions.runCommand', {
        sessionId: args.session_id,
        command: args.command,
        timeoutMs: secondsToMs(args.timeout_seconds),
      }),
    );
    const head = `exit code ${r.exitCode}${r.timedOut ? ' (timed out)' : ''} in ${formatDuration(r.durationMs)} (session ${r.sessionId})`;
    const text = [
      head,
      r.stdout ? `stdout:\n${r.stdout.replace(/\n$/, '')}` : '',
      r.stderr ? `stderr:\n${r.stderr.replace(/\n$/, '')}` : '',
    ]
      .filter(Boolean)
      .join('\n');
    return {
      structured: {
        session_id: r.sessionId,
        exit_code: r.exitCode,
        stdout: r.stdout,
        stderr: r.stderr,
        timed_out: r.timedOut,
        duration_ms: r.durationMs,
      },
      text,
    };
  },
});
