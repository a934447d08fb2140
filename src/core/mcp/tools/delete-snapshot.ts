import { z } from 'zod';
import { defineTool } from '../define-tool';

export const deleteSnapshot = defineTool({
  name: 'delete_snapshot',
  title: 'Delete a snapshot',
  description: 'Deletes a snapshot you took (those taken in the Sandpit panel only the person can delete). Sessions made from it are not affected.',
  input: {
    snapshot_id: z.string().min(1).max(64).describe('The snapshot to delete (from list_snapshots).'),
  },
  output: {
    snapshot_id: z.string(),
    deleted: z.boolean().describe('true once it is gone'),
    freed_bytes: z.number().int().describe('Storage no other snapshot used, now freed'),
  },
  hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  run: async (args, kit) => {
    const out = await kit.call('snapshots.delete', { snapshotId: args.snapshot_id });
    return {
      structured: { snapshot_id: out.snapshotId, deleted: out.deleted, freed_bytes: out.freedBytes },
      text: `Deleted snapshot ${out.snapshotId} (${out.freedBytes} bytes freed).`,
    };
  },
});
