import { z } from 'zod';
import { defineTool } from '../define-tool';
import { snapshotLine, snapshotSummarySchema, toSnapshotSummary } from '../snapshot-output';

export const snapshotSession = defineTool({
  name: 'snapshot_session',
  title: 'Snapshot a session',
  description:
    "Saves a session's workspace files, the packages installed in it and the list of its successful runs as a snapshot in Sandpit (variables themselves are not saved: restore with replay: true to rebuild them). " +
    'Restore it later with restore_snapshot, or use fork_session to copy a session in one step. Links in the workspace are left out, never followed.',
  input: {
    session_id: z.string().min(1).max(64).optional().describe('The session to snapshot; default: your default session.'),
    name: z.string().min(1).max(64).optional().describe('A short name for the snapshot, e.g. "before cleaning".'),
  },
  output: snapshotSummarySchema.shape,
  // Adds a snapshot; the session is unchanged. Two calls make two snapshots.
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  run: async (args, kit) => {
    const snapshot = await kit.call('snapshots.create', { sessionId: args.session_id, name: args.name });
    return { structured: toSnapshotSummary(snapshot), text: `Took snapshot ${snapshotLine(snapshot)}` };
  },
});
