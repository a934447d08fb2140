import { z } from 'zod';
import { defineTool } from '../define-tool';
import { charLimit, TOOL_INPUT_LIMITS } from '../mcp-limits';
import { newestLine, TAIL_CHARS } from '../follow-run';
import { startProgress } from '../progress-ticker';
import { secondsToMs, sessionIdField } from '../tool-fields';
import { backgroundField, orBackgroundStart } from '../background-output';
import { commandOutputShape, commandToolOutput } from '../command-output';

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
      .describe('Kill the command after this many seconds (default: the session limit, usually 60; in the background one hour).'),
    background: backgroundField,
  },
  output: orBackgroundStart(commandOutputShape),
  // Any command may delete or overwrite files in the session (never outside it); no network.
  hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  // background: true (or an MCP task): the same run, started in the background.
  background: (args) => ({ kind: 'command', sessionId: args.session_id, command: args.command, timeoutMs: secondsToMs(args.timeout_seconds) }),
  run: async (args, kit, extra) => {
    // Progress says the newest line the command printed, as execute_code's does.
    let tail = '';
    const startedAt = Date.now();
    const ticker = startProgress(extra, () => newestLine(tail) ?? `running the command (${Math.round((Date.now() - startedAt) / 1000)} s)`, kit.log);
    try {
      const r = await kit.call(
        'sessions.runCommand',
        { sessionId: args.session_id, command: args.command, timeoutMs: secondsToMs(args.timeout_seconds) },
        { onOutput: (_stream, text) => (tail = (tail + text).slice(-TAIL_CHARS)) },
      );
      return commandToolOutput(r);
    } finally {
      ticker.stop();
    }
  },
});
