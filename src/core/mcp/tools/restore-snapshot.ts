import { z } from 'zod';
import { defineTool } from '../define-tool';
import { withProgress } from '../progress-ticker';
import { restoredSchema, toRestoredOutput } from '../snapshot-output';

export const restoreSnapshot = defineTool({
  name: 'restore_snapshot',
  title: 'Restore a snapshot',
  description:
    'Starts a new session from a snapshot (see list_snapshots): the same files, installed packages, environment and limits; no network is needed. ' +
    'With replay: true the recorded runs run again in order to rebuild the variables; the replay stops at the first run that fails and says which and why.',
  input: {
    snapshot: z.string().min(1).max(64).describe('The snapshot to restore, by snapshot_id or by name.'),
    replay: z.boolean().optional().describe('Run the recorded runs again to rebuild the variables (default false).'),
    name: z.string().min(1).max(64).optional().describe('A short name for the new session.'),
  },
  output: restoredSchema,
  // Adds a session and changes nothing else; no network is reached.
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  run: async (args, kit, extra) => {
    const restored = await withProgress(extra, `restoring the snapshot "${args.snapshot}"`, kit.log, () =>
      kit.call('snapshots.restore', { snapshot: args.snapshot, replay: args.replay ?? false, name: args.name }),
    );
    return toRestoredOutput(restored);
  },
});
