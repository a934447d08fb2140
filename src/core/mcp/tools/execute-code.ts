import { z } from 'zod';
import { LANGUAGES } from '../../../shared/domain/languages';
import { defineTool } from '../define-tool';
import { charLimit, TOOL_INPUT_LIMITS } from '../mcp-limits';
import { executionOutputShape, executionToolOutput } from '../execution-output';
import { runFollowed } from '../follow-run';
import { backgroundField, orBackgroundStart } from '../background-output';
import { secondsToMs, sessionIdField, timeoutSecondsField } from '../tool-fields';

export const executeCode = defineTool({
  name: 'execute_code',
  title: 'Run code',
  description:
    'Runs code in a sandbox (an isolated container with no network) and returns stdout, stderr, the value of the last expression, the error with its traceback, and any pictures or files the code made. ' +
    'Variables, imports and files persist between calls in the same session; without session_id your default session is used. ' +
    'A failing program is a normal result with status "error" (read the traceback), not a tool failure.',
  input: {
    code: z
      .string()
      .max(TOOL_INPUT_LIMITS.codeChars)
      .describe(
        `The source code to run, ${charLimit(TOOL_INPUT_LIMITS.codeChars)}, e.g. "import math\\nmath.sqrt(2)". The value of the last expression is returned as result.`,
      ),
    language: z
      .enum(LANGUAGES)
      .optional()
      .describe('Language of the code (default python); only used when the default session has to be created.'),
    session_id: sessionIdField,
    timeout_seconds: timeoutSecondsField,
    background: backgroundField,
  },
  output: orBackgroundStart(executionOutputShape),
  // Arbitrary code may delete or overwrite files and variables in its session (never outside it), and
  // running it twice is not the same as once. The sandbox has no network: a closed world.
  hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  // background: true (or an MCP task): the same run, started in the background.
  background: (args) => ({ kind: 'code', sessionId: args.session_id, language: args.language, code: args.code, timeoutMs: secondsToMs(args.timeout_seconds) }),
  run: async (args, kit, extra) => {
    const result = await runFollowed(kit, extra, (executionId) =>
      kit.call('sessions.execute', {
        sessionId: args.session_id,
        language: args.language,
        code: args.code,
        timeoutMs: secondsToMs(args.timeout_seconds),
        executionId,
      }),
    );
    return executionToolOutput(result, kit);
  },
});
