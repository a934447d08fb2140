import { z } from 'zod';
import { runIdSchema } from '../../../shared/domain/background-run';
import { commandOutputShape } from '../command-output';
import { defineTool } from '../define-tool';
import { executionOutputShape } from '../execution-output';
import { finishedRunOutput } from '../run-result';
import { runLine, runViewShape, toRunView } from '../run-view';

/** The longest one get_run waits (clients give up on a call after about a minute). */
const MAX_WAIT_SECONDS = 50;

export const getRun = defineTool({
  name: 'get_run',
  title: 'Check a background run',
  description:
    'Returns a background run\'s state and its new output since a cursor, and, once it is done, its full result in the same shape as the foreground call (execute_code, run_file or run_command). ' +
    'Pass the cursor of the previous answer as since to get only what is new; wait_seconds waits for new output or the end.',
  input: {
    run_id: runIdSchema,
    since: z.number().int().min(0).optional().describe('Output cursor: the cursor of the previous answer (default 0: from the start)'),
    wait_seconds: z
      .number()
      .min(0)
      .max(MAX_WAIT_SECONDS)
      .optional()
      .describe(`Wait up to this many seconds (at most ${MAX_WAIT_SECONDS}) for new output or the end of the run (default 0: answer at once)`),
  },
  output: {
    ...runViewShape,
    output: z.string().describe('Output since the cursor (stdout and stderr in the order they reached Sandpit: two lines printed at once to each may come either way; at most 64k characters)'),
    cursor: z.number().int().describe('Pass as since next time'),
    more: z.boolean().describe('More output is there already: call again with the cursor'),
    skipped_chars: z.number().int().describe('Output after since that is no longer kept (only the newest 2M characters are)'),
    result: z.object(executionOutputShape).or(z.object(commandOutputShape)).optional().describe('Once done: the full result, as the foreground call returns it'),
  },
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async (args, kit) => {
    const answer = await kit.call('runs.get', {
      runId: args.run_id,
      since: args.since ?? 0,
      waitMs: Math.round((args.wait_seconds ?? 0) * 1000),
    });
    const output = answer.output.map((c) => c.text).join('');
    const base = {
      ...toRunView(answer.run),
      output,
      cursor: answer.cursor,
      more: answer.more,
      skipped_chars: answer.skippedChars,
    };
    const head = [
      runLine(answer.run),
      answer.skippedChars > 0 ? `(${answer.skippedChars} characters of older output are no longer kept)` : '',
      output ? `new output:\n${output.replace(/\n$/, '')}` : '',
      answer.more ? `(more output: call get_run with since ${answer.cursor})` : '',
    ]
      .filter(Boolean)
      .join('\n');
    const full = await finishedRunOutput(answer, kit);
    if (full) return { structured: { ...base, result: full.structured }, text: `${head}\nresult: ${full.text}`, content: full.content ?? [], ...(full.meta ? { meta: full.meta } : {}) };
    const next = answer.run.state === 'failed' ? '' : `\n(not done yet: call get_run with since ${answer.cursor} and wait_seconds to follow it)`;
    return { structured: base, text: `${head}${next}` };
  },
});
