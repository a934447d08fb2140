import { lstat, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { SandpitError, toErrorBody } from '../../../shared/api/errors';
import type { ChangeOutcome, FolderChange } from '../../../shared/domain/folder-changes';
import type { ApplyTemps } from './apply-temps';
import type { LayerOwner } from './review-copy';
import { copyFileAtomic, ensureParents, hashFile } from './review-files';
import { hostStamp, stamp } from './review-manifest';
import { holdParent } from './safe-dir';
import type { ReviewManifest } from './review-manifest';
import type { Trash } from './system-trash';

export interface ApplyContext {
  manifest: ReviewManifest;
  /** The session's files as they lie in the layer (the copy, or the overlay's upper layer): what an apply reads. */
  filesDir: string;
  /**
   * Where a discard writes: the copy itself, or the overlay as the sandbox sees it (mounted; overlayfs then makes
   * the whiteouts and opaque folders itself). Absent: discards are refused, saying why (`viewMissing`).
   */
  sessionView?: string | undefined;
  viewMissing?: string | undefined;
  owner: LayerOwner | undefined;
  trash: Trash | undefined;
  /** The person confirmed deleting files for good (only asked where there is no trash). */
  confirmDelete: boolean;
  /** The content the person reviewed, per path (sha256; null = the file was to be deleted): anything else is refused. */
  expect?: Record<string, string | null> | undefined;
  /** Where the temp files an apply makes in the person's folder are written down first. */
  temps?: ApplyTemps | undefined;
}

const root = (ctx: ApplyContext): string => ctx.manifest.hostPath;

async function recordHost(ctx: ApplyContext, rel: string, sha256: string, size: number, text: boolean): Promise<void> {
  const info = await lstat(join(root(ctx), rel));
  const layer = await lstat(join(ctx.filesDir, rel));
  ctx.manifest.files[rel] = {
    size,
    sha256,
    text,
    mode: info.mode & 0o7777,
    uid: info.uid,
    gid: info.gid,
    host: hostStamp(info),
    layer: stamp(layer),
  };
}

async function writeToHost(ctx: ApplyContext, change: FolderChange): Promise<ChangeOutcome> {
  const after = change.after!;
  const expected = ctx.expect?.[change.path];
  if (ctx.expect && expected !== undefined && expected !== after.sha256) {
    return {
      path: change.path,
      done: false,
      message: 'The session changed this file after you reviewed it: review it again.',
    };
  }
  const base = ctx.manifest.files[change.from ?? change.path];
  const target = await ensureParents(root(ctx), change.path);
  const owner = base && process.getuid?.() === 0 ? { uid: base.uid, gid: base.gid } : undefined;
  const copied = await copyFileAtomic(join(ctx.filesDir, change.path), target, {
    mode: after.mode,
    ...(owner ? { owner } : {}),
    expect: after.sha256,
    ...(ctx.temps ? { onTemp: (temp: string) => ctx.temps!.record(temp) } : {}),
  });
  await recordHost(ctx, change.path, copied.sha256, copied.size, copied.text);
  return {
    path: change.path,
    done: true,
    message:
      change.before && !change.from
        ? "Applied: your file now has the session's version."
        : 'Applied: the file is now in your folder.',
    ...(change.before ? { beforeSha256: change.before.sha256 } : {}),
    afterSha256: copied.sha256,
  };
}

async function removeFromHost(
  ctx: ApplyContext,
  rel: string,
): Promise<{ done: boolean; message: string; trashed?: string; needsConfirmation?: boolean }> {
  const path = join(root(ctx), rel);
  const info = await lstat(path).catch(() => undefined);
  if (!info) {
    delete ctx.manifest.files[rel];
    return { done: true, message: 'Already gone from your folder.' };
  }
  let why = 'This computer has no trash Sandpit can use: confirm that the file is deleted for good.';
  if (ctx.trash) {
    try {
      const trashed = await ctx.trash.put(path);
      delete ctx.manifest.files[rel];
      return { done: true, message: 'Moved to the trash.', trashed };
    } catch (error) {
      why = `Your computer's trash could not take it (${toErrorBody(error).message}): confirm that the file is deleted for good.`;
    }
  }
  if (!ctx.confirmDelete) return { done: false, message: why, needsConfirmation: true };
  await rm(path);
  delete ctx.manifest.files[rel];
  return { done: true, message: 'Deleted for good (you confirmed it).' };
}

/**
 * Applies one reviewed change to the person's folder: a new or changed file through a temp file in the same
 * folder renamed over the old one (mode kept, owner kept), a deleted file to the trash; a rename is both. A
 * link, a special file, a path leaving the folder, a conflict, or content other than what was reviewed is
 * never applied.
 */
export async function applyChange(ctx: ApplyContext, change: FolderChange): Promise<ChangeOutcome> {
  if (change.refused) return { path: change.path, done: false, message: `Not applied: ${change.refused.message}` };
  if (change.conflict)
    return {
      path: change.path,
      done: false,
      message: `Not applied: ${change.conflict} Your version is kept; discard the session's change, or change your file back.`,
    };
  try {
    if (change.kind === 'deleted') {
      if (ctx.expect && ctx.expect[change.path] !== undefined && ctx.expect[change.path] !== null)
        return {
          path: change.path,
          done: false,
          message: 'The session brought this file back after you reviewed it: review it again.',
        };
      const now = await hashFile(join(root(ctx), change.path));
      if (now.sha256 !== change.before!.sha256)
        return {
          path: change.path,
          done: false,
          message: 'Not applied: you changed this file on your computer after it was shared.',
        };
      const gone = await removeFromHost(ctx, change.path);
      return { path: change.path, ...gone, beforeSha256: change.before!.sha256 };
    }
    const written = await writeToHost(ctx, change);
    if (!written.done || change.kind !== 'renamed' || !change.from) return written;
    const gone = await removeFromHost(ctx, change.from);
    return {
      ...written,
      message: gone.done
        ? `Applied: renamed from ${change.from} (${gone.message.toLowerCase()})`
        : `The new name is applied; ${change.from} is kept: ${gone.message}`,
      ...(gone.trashed ? { trashed: gone.trashed } : {}),
      ...(gone.needsConfirmation ? { needsConfirmation: true } : {}),
    };
  } catch (error) {
    return { path: change.path, done: false, message: `Not applied: ${toErrorBody(error).message}` };
  }
}

/** Mode and owner for a folder a discard makes in the session's view: the person's folder's own, else the layer's. */
async function folderSpec(ctx: ApplyContext, rel: string): Promise<{ mode: number; uid?: number; gid?: number }> {
  const host = await lstat(join(root(ctx), rel)).catch(() => undefined);
  const own =
    ctx.manifest.backend === 'copy'
      ? ctx.owner
      : host && process.getuid?.() === 0
        ? { uid: host.uid, gid: host.gid }
        : undefined;
  return { mode: host?.isDirectory() ? host.mode & 0o7777 : 0o755, ...(own ?? {}) };
}

/**
 * Takes one change back out of the session's layer: the session's file is replaced by the person's current
 * one (or removed, when the person has none). The person's folder is never touched. Every folder on the way is
 * opened without following a link, one from the other (the sandbox may change its files meanwhile).
 */
export async function discardChange(ctx: ApplyContext, change: FolderChange): Promise<ChangeOutcome> {
  try {
    const view = ctx.sessionView;
    if (view === undefined)
      throw new SandpitError('CONFLICT', ctx.viewMissing ?? "The session's view of this folder is not open.", {
        reason: 'view-missing',
      });
    const restore = async (rel: string): Promise<void> => {
      const hostFile = join(root(ctx), rel);
      const host = await lstat(hostFile).catch(() => undefined);
      const held = await holdParent(view, rel, host?.isFile() ? (folder) => folderSpec(ctx, folder) : undefined);
      if (!held) {
        delete ctx.manifest.files[rel];
        return;
      }
      try {
        if (!host?.isFile()) {
          await unlink(held.dir.path(held.name)).catch((error: NodeJS.ErrnoException) => {
            if (error.code !== 'ENOENT') throw error;
          });
          delete ctx.manifest.files[rel];
          return;
        }
        // the copy belongs to the sandbox user; in an overlay the person's file keeps its owner, as overlayfs would
        const owner =
          ctx.manifest.backend === 'copy'
            ? ctx.owner
            : process.getuid?.() === 0
              ? { uid: host.uid, gid: host.gid }
              : undefined;
        const copied = await copyFileAtomic(hostFile, held.dir.path(held.name), {
          mode: host.mode,
          ...(owner ? { owner } : {}),
          sync: false,
        });
        await recordHost(ctx, rel, copied.sha256, copied.size, copied.text);
      } finally {
        await held.dir.close();
      }
    };
    await restore(change.path);
    if (change.from) await restore(change.from);
    return {
      path: change.path,
      done: true,
      message: 'Discarded: the session now has your version.',
      ...(change.after ? { beforeSha256: change.after.sha256 } : {}),
      ...(change.before ? { afterSha256: change.before.sha256 } : {}),
    };
  } catch (error) {
    return { path: change.path, done: false, message: `Not discarded: ${toErrorBody(error).message}` };
  }
}
