import { z } from 'zod';
import { defineTool } from '../define-tool';
import { runLine, runViewShape, toRunView } from '../run-view';

export const listRuns = defineTool({
  name: 'list_runs',
  title: 'List background runs',
  description: 'Lists your background runs (started with background: true), newest first, with their state; also after you reconnected.',
  input: {
    session_id: z.string().min(1).max(64).optional().describe('Only the runs of this session'),
  },
  output: { runs: z.array(z.object(runViewShape)).describe('Newest first') },
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async (args, kit) => {
    const { runs } = await kit.call('runs.list', args.session_id === undefined ? {} : { sessionId: args.session_id });
    return {
      structured: { runs: runs.map(toRunView) },
      text: runs.length === 0 ? 'No background runs.' : runs.map(runLine).join('\n'),
    };
  },
});
