import { defineTool } from '../define-tool';
import { executionOutputShape, executionToolOutput } from '../execution-output';
import { runFollowed } from '../follow-run';
import { backgroundField, orBackgroundStart } from '../background-output';
import { pathField, secondsToMs, sessionIdField, timeoutSecondsField } from '../tool-fields';

export const runFile = defineTool({
  name: 'run_file',
  title: 'Run a file',
  description:
    "Runs a script file from /workspace (e.g. one built with write_file) in the session, like execute_code with the file's content: what it defines stays available. " +
    '.py files run in Python sessions; for anything else use run_command.',
  input: {
    path: pathField('The file to run, relative to /workspace (e.g. "main.py").'),
    session_id: sessionIdField,
    timeout_seconds: timeoutSecondsField,
    background: backgroundField,
  },
  output: orBackgroundStart(executionOutputShape),
  // Same effects as execute_code: any code, confined to the session, no network.
  hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  // background: true (or an MCP task): the same run, started in the background.
  background: (args) => ({ kind: 'file', sessionId: args.session_id, path: args.path, timeoutMs: secondsToMs(args.timeout_seconds) }),
  run: async (args, kit, extra) => {
    const result = await runFollowed(kit, extra, (executionId) =>
      kit.call('sessions.runFile', {
        sessionId: args.session_id,
        path: args.path,
        timeoutMs: secondsToMs(args.timeout_seconds),
        executionId,
      }),
    );
    return executionToolOutput(result, kit);
  },
});
