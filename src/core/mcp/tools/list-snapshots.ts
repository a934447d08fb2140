import { z } from 'zod';
import { defineTool } from '../define-tool';
import { snapshotLine, snapshotSummarySchema, toSnapshotSummary } from '../snapshot-output';

export const listSnapshots = defineTool({
  name: 'list_snapshots',
  title: 'List snapshots',
  description: 'Lists the snapshots you can restore (yours and those the person took in the Sandpit panel), newest first.',
  input: {},
  output: { snapshots: z.array(snapshotSummarySchema).describe('Newest first') },
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async (_args, kit) => {
    const { snapshots } = await kit.call('snapshots.list', {});
    return {
      structured: { snapshots: snapshots.map(toSnapshotSummary) },
      text: snapshots.length === 0 ? 'No snapshots yet: take one with snapshot_session.' : snapshots.map(snapshotLine).join('\n'),
    };
  },
});
