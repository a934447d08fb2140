import { z } from 'zod';
import { defineTool } from '../define-tool';
import { processIdSchema } from '../../../shared/domain/process';
import { formatBytes } from '../tool-fields';
import { processLine, processObject, processStructured } from './process-fields';

export const processOutput = defineTool({
  name: 'process_output',
  title: "Read a process's output",
  description:
    'Returns what a process (from start_process) wrote since a cursor: pass the `next` of the previous answer as `since` to get only what is new. ' +
    'Only the last 1 MiB is kept: the answer says when older output was dropped. With wait_seconds it waits for new output (or the end) when there is none yet.',
  input: {
    process_id: processIdSchema,
    since: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe('Cursor: the `next` of an earlier answer (default: the oldest output kept).'),
    wait_seconds: z
      .number()
      .min(0)
      .max(60)
      .optional()
      .describe('Wait up to this long for new output when there is none yet (default 0).'),
  },
  output: {
    process: processObject,
    text: z.string().describe('Output (stdout and stderr together) from `since` on'),
    next: z.number().int().describe('The cursor to pass as `since` next time'),
    dropped_bytes: z.number().int().describe('Bytes before the kept output that are gone'),
    more: z.boolean().describe('More output is waiting: ask again from `next`'),
  },
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  run: async (args, kit) => {
    const r = await kit.call('processes.output', {
      processId: args.process_id,
      ...(args.since === undefined ? {} : { since: args.since }),
      waitSeconds: args.wait_seconds ?? 0,
    });
    const notes = [
      processLine(r.process),
      r.droppedBytes > 0
        ? `(${formatBytes(r.droppedBytes)} of older output were dropped: only the last 1 MiB is kept)`
        : '',
      r.more ? `(more output is waiting: call again with since=${r.next})` : `(next: since=${r.next})`,
    ].filter(Boolean);
    return {
      structured: {
        process: processStructured(r.process),
        text: r.text,
        next: r.next,
        dropped_bytes: r.droppedBytes,
        more: r.more,
      },
      text: `${notes.join('\n')}\n${r.text === '' ? '(no new output)' : r.text}`,
    };
  },
});
