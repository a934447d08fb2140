import { chown, lstat, readlink, symlink, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { FolderChange } from '../../../shared/domain/folder-changes';
import type { LayerOwner } from './review-copy';
import { readVerified, writeContentAtomic } from './review-files';
import type { BaseFile, ReviewManifest } from './review-manifest';
import { holdParent } from './safe-dir';

const SHA256 = /^[a-f0-9]{64}$/;

/** One pending change of a review folder as a snapshot keeps it: the session's file (its content a blob), a deletion, or a link. */
export const pendingEntrySchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('file'),
    path: z.string().min(1).max(4096),
    sha256: z.string().regex(SHA256),
    size: z.number().int().nonnegative(),
    mode: z.number().int().min(0).max(0o7777),
  }),
  z.object({ kind: z.literal('deleted'), path: z.string().min(1).max(4096) }),
  z.object({ kind: z.literal('link'), path: z.string().min(1).max(4096), target: z.string().min(1).max(4096) }),
]);
export type PendingEntry = z.infer<typeof pendingEntrySchema>;

/** What the session read of the person's files it changed (the conflicts of a restored session are the original's). */
export const pendingBaseSchema = z.object({
  size: z.number(),
  sha256: z.string().regex(SHA256).optional(),
  mode: z.number().int().min(0).max(0o7777),
  uid: z.number().int(),
  gid: z.number().int(),
  host: z.object({ ino: z.number(), mtimeMs: z.number(), ctimeMs: z.number() }),
});

export interface PendingChanges {
  entries: PendingEntry[];
  base: Record<string, z.infer<typeof pendingBaseSchema>>;
  /** What could not be carried, with why (special files; files beyond the size a snapshot takes). */
  skipped: string[];
}

/** The pending changes of a review folder as entries, each file's content read when asked (exactly the content listed). */
export async function pendingOf(
  manifest: ReviewManifest,
  filesDir: string,
  changes: readonly FolderChange[],
  maxFileBytes: number,
): Promise<{ pending: PendingChanges; read: (entry: PendingEntry & { kind: 'file' }) => Promise<Buffer> }> {
  const entries: PendingEntry[] = [];
  const skipped: string[] = [];
  for (const change of changes) {
    if (change.refused?.reason === 'link') {
      const target = await readlink(join(filesDir, change.path)).catch(() => undefined);
      if (target !== undefined) entries.push({ kind: 'link', path: change.path, target });
      continue;
    }
    if (change.refused) {
      skipped.push(`${change.path} (a device, pipe or socket: not carried)`);
      continue;
    }
    if (change.from) entries.push({ kind: 'deleted', path: change.from });
    if (change.kind === 'deleted' || !change.after) entries.push({ kind: 'deleted', path: change.path });
    else if (change.after.size > maxFileBytes)
      skipped.push(`${change.path} (larger than a snapshot takes: not carried)`);
    else
      entries.push({
        kind: 'file',
        path: change.path,
        sha256: change.after.sha256,
        size: change.after.size,
        mode: change.after.mode,
      });
  }
  const base: PendingChanges['base'] = {};
  for (const entry of entries) {
    const b = manifest.files[entry.path];
    if (b)
      base[entry.path] = {
        size: b.size,
        ...(b.sha256 ? { sha256: b.sha256 } : {}),
        mode: b.mode,
        uid: b.uid,
        gid: b.gid,
        host: b.host,
      };
  }
  const read = async (entry: PendingEntry & { kind: 'file' }): Promise<Buffer> => {
    const bytes = await readVerified(join(filesDir, entry.path), entry.sha256, maxFileBytes);
    if (!bytes) throw new Error(`${entry.path} changed while the snapshot was taken`);
    return bytes;
  };
  return { pending: { entries, base, skipped }, read };
}

/**
 * Writes a snapshot's pending changes into a new session's layer through its view (the copy, or the overlay as
 * mounted: overlayfs makes the whiteouts), as the session's own (the sandbox user's) files, each folder on the way
 * opened without following a link; then records what the original session had read of the person's files, so the
 * review (and its conflicts) is the original's.
 */
export async function seedPending(
  manifest: ReviewManifest,
  view: string,
  pending: PendingChanges,
  load: (entry: PendingEntry & { kind: 'file' }) => Promise<Buffer>,
  owner: LayerOwner | undefined,
): Promise<void> {
  const folderSpec = async (rel: string): Promise<{ mode: number; uid?: number; gid?: number }> => {
    const host = await lstat(join(manifest.hostPath, rel)).catch(() => undefined);
    return { mode: host?.isDirectory() ? host.mode & 0o7777 : 0o755, ...(owner ?? {}) };
  };
  for (const entry of pending.entries) {
    const held = await holdParent(view, entry.path, entry.kind === 'deleted' ? undefined : folderSpec);
    if (!held) continue;
    try {
      const target = held.dir.path(held.name);
      if (entry.kind === 'file') {
        await writeContentAtomic(target, await load(entry), { mode: entry.mode, ...(owner ? { owner } : {}) });
        continue;
      }
      await unlink(target).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
      if (entry.kind === 'link') {
        await symlink(entry.target, target);
        if (owner) await chown(target, owner.uid, owner.gid).catch(() => undefined);
      }
    } finally {
      await held.dir.close();
    }
  }
  for (const entry of pending.entries) {
    const recorded = pending.base[entry.path];
    if (recorded) manifest.files[entry.path] = { ...recorded } satisfies BaseFile;
    else delete manifest.files[entry.path];
  }
}
