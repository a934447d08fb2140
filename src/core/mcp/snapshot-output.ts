import { z } from 'zod';
import type { RestoredSession, Snapshot } from '../../shared/domain/snapshot';
import { sessionSummarySchema, toSessionSummary } from './session-output';

export const snapshotSummarySchema = z.object({
  snapshot_id: z.string().describe('Pass as snapshot to restore_snapshot, or to delete_snapshot'),
  name: z.string().describe('Its name in the Sandpit panel'),
  created: z.string().describe('When it was taken (ISO 8601)'),
  session_id: z.string().describe('The session it was taken of'),
  language: z.string(),
  environment: z.string().describe('Environment of that session'),
  files: z.number().int().describe('Workspace files it holds'),
  packages: z.array(z.string()).describe('Packages installed at run time, carried in the snapshot (restored without the network)'),
  runs: z.number().int().describe('Successful runs recorded in order (replay: true runs them again)'),
  size_bytes: z.number().int().describe('Files, packages and runs together'),
  added_bytes: z.number().int().describe('Storage it added (files another snapshot already holds are shared)'),
  skipped: z.array(z.string()).describe('Links and special files left out (never followed)'),
  shared_folders_left_out: z.array(z.string()).describe("Shared folders of the person's computer: never copied, and not given to a restored or forked session"),
  review_folders: z
    .array(z.object({ mount_path: z.string(), host_path: z.string(), pending_changes: z.number().int() }))
    .describe("Folders whose changes need the person's OK, with their pending changes: a fork gets them again (restore_snapshot does not; the person's restore in the panel does)"),
  shared: z.boolean().describe('Taken in the Sandpit panel (any assistant may restore it)'),
});
export type SnapshotSummary = z.infer<typeof snapshotSummarySchema>;

export function toSnapshotSummary(s: Snapshot): SnapshotSummary {
  return {
    snapshot_id: s.id,
    name: s.name,
    created: s.createdAt,
    session_id: s.sessionId,
    language: s.language,
    environment: s.environmentName ?? s.environment ?? s.language,
    files: s.files,
    packages: s.packages,
    runs: s.runs,
    size_bytes: s.sizeBytes,
    added_bytes: s.addedBytes,
    skipped: s.skipped,
    shared_folders_left_out: s.sharedFoldersLeftOut,
    review_folders: s.reviewFolders.map((f) => ({ mount_path: f.mountPath, host_path: f.hostPath, pending_changes: f.changes })),
    shared: s.shared,
  };
}

/** One line per snapshot for the text a model reads. */
export function snapshotLine(s: Snapshot): string {
  const packages = s.packages.length > 0 ? `, packages: ${s.packages.join(' ')}` : '';
  const skipped = s.skipped.length > 0 ? `, left out (links/special files): ${s.skipped.join(', ')}` : '';
  const folders = s.sharedFoldersLeftOut.length > 0 ? `, shared folders not copied: ${s.sharedFoldersLeftOut.join(', ')}` : '';
  const review = s.reviewFolders.length > 0 ? `, pending changes kept for: ${s.reviewFolders.map((f) => `${f.mountPath} (${f.changes})`).join(', ')}` : '';
  return `${s.id} "${s.name}": ${s.files} file(s), ${s.sizeBytes} bytes, ${s.runs} run(s) recorded, of session ${s.sessionId}, taken ${s.createdAt}${packages}${skipped}${folders}${review}`;
}

export const restoredSchema = {
  session: sessionSummarySchema.describe('The new session: pass its session_id to the other tools'),
  snapshot: snapshotSummarySchema.describe('The snapshot it was made from'),
  files: z.number().int().describe('Files written into the new workspace'),
  replay: z
    .object({
      total: z.number().int(),
      ran: z.number().int().describe('Runs that ran again successfully'),
      complete: z.boolean(),
      failed_run: z.number().int().optional().describe('Which run failed (counting from 1); nothing after it ran'),
      failed_code: z.string().optional(),
      error: z.string().optional().describe('Its error'),
      message: z.string(),
    })
    .optional()
    .describe('How the replay went (only with replay: true)'),
  review_folders: z
    .array(z.object({ mount_path: z.string(), carried: z.boolean(), message: z.string() }))
    .optional()
    .describe("The snapshot's folders whose changes need the person's OK: given again with their pending changes, or why not"),
};

export function toRestoredOutput(r: RestoredSession): { structured: z.input<z.ZodObject<typeof restoredSchema>>; text: string } {
  const replay = r.replay
    ? {
        total: r.replay.total,
        ran: r.replay.ran,
        complete: r.replay.complete,
        ...(r.replay.failed ? { failed_run: r.replay.failed.index, failed_code: r.replay.failed.code, error: r.replay.failed.error } : {}),
        message: r.replay.message,
      }
    : undefined;
  const lines = [
    `New session ${r.session.id} "${r.session.name}" from snapshot ${r.snapshot.id}: ${r.files} file(s)${r.snapshot.packages.length ? `, packages ${r.snapshot.packages.join(' ')}` : ''}.`,
    r.replay ? `Replay: ${r.replay.message}` : 'Variables were not rebuilt (pass replay: true to run the recorded runs again).',
    ...(r.reviewFolders ?? []).map((f) => `${f.mountPath}: ${f.message}`),
  ];
  const review = r.reviewFolders?.map((f) => ({ mount_path: f.mountPath, carried: f.carried, message: f.message }));
  return {
    structured: {
      session: toSessionSummary(r.session),
      snapshot: toSnapshotSummary(r.snapshot),
      files: r.files,
      ...(replay ? { replay } : {}),
      ...(review ? { review_folders: review } : {}),
    },
    text: lines.join('\n'),
  };
}
