import { z } from 'zod';
import { defineTool } from '../define-tool';
import { withProgress } from '../progress-ticker';
import { restoredSchema, toRestoredOutput } from '../snapshot-output';

export const forkSession = defineTool({
  name: 'fork_session',
  title: 'Fork a session',
  description:
    'Copies a session into a new one in one step (a snapshot, then a restore): same files, installed packages, environment and limits; from then on each changes on its own. ' +
    'Use it to try two approaches and keep the one that worked (stop_session the other). With replay: true the runs so far run again in the copy to rebuild its variables.',
  input: {
    session_id: z.string().min(1).max(64).optional().describe('The session to copy; default: your default session.'),
    replay: z.boolean().optional().describe('Run the recorded runs again in the copy to rebuild the variables (default false).'),
    name: z.string().min(1).max(64).optional().describe('A short name for the copy.'),
  },
  output: restoredSchema,
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  run: async (args, kit, extra) => {
    const restored = await withProgress(extra, 'copying the session', kit.log, () =>
      kit.call('sessions.fork', { sessionId: args.session_id, replay: args.replay ?? false, name: args.name }),
    );
    return toRestoredOutput(restored);
  },
});
