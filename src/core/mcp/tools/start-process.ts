import { z } from 'zod';
import { defineTool } from '../define-tool';
import { charLimit, TOOL_INPUT_LIMITS } from '../mcp-limits';
import { sessionIdField } from '../tool-fields';
import { processFields, processStructured } from './process-fields';

export const startProcess = defineTool({
  name: 'start_process',
  title: 'Start a process that keeps running',
  description:
    'Starts a shell command (sh -c) that keeps running after this call returns, e.g. a web app ("python3 -m http.server 8000") or a long job. ' +
    "It runs in the session's sandbox under the session's limits, and ends when the session stops, restarts or pauses. " +
    'Read its output with process_output, stop it with stop_process. Run it in the foreground: a process that puts itself in the background is stopped after the next run.',
  input: {
    command: z
      .string()
      .min(1)
      .max(TOOL_INPUT_LIMITS.commandChars)
      .describe(`The command line, run with sh -c; ${charLimit(TOOL_INPUT_LIMITS.commandChars)}.`),
    session_id: sessionIdField,
    name: z.string().min(1).max(120).optional().describe('What to call it in lists (default: its command).'),
    cwd: z.string().min(1).max(4096).optional().describe('Folder in /workspace to run it in (default: /workspace).'),
  },
  output: processFields,
  // It runs any command in the session (never outside it), and goes on running.
  hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  run: async (args, kit) => {
    const p = await kit.call('processes.start', {
      sessionId: args.session_id,
      command: args.command,
      ...(args.name === undefined ? {} : { name: args.name }),
      ...(args.cwd === undefined ? {} : { cwd: args.cwd }),
    });
    return {
      structured: processStructured(p),
      text: `Started process ${p.id} in session ${p.sessionId}; it keeps running. Read its output with process_output {"process_id": "${p.id}"}; stop it with stop_process.`,
    };
  },
});
