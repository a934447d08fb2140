import { lstat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { FileSide, FolderChange } from '../../../shared/domain/folder-changes';
import type { HashCache } from './hash-cache';
import type { LayerEntry } from './layer-entries';
import { walkLayer } from './layer-entries';
import { readUpper } from './overlay-upper';
import type { OpaqueMarks } from './overlay-upper';
import { MAX_TEXT_BYTES, hashFile, parentsAreFolders } from './review-files';
import { hostUnchanged, layerUntouched } from './review-manifest';
import type { BaseFile, ReviewManifest } from './review-manifest';

/** Files past this are summarised, never diffed or read whole. */
export const MAX_DIFF_BYTES = MAX_TEXT_BYTES;

const IMAGES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};

/** One listing: the record (its missing hashes are filled in, and `dirty` set, for the caller to save), the layer, the hash cache. */
export interface ScanContext {
  manifest: ReviewManifest;
  /** The layer's folder of the session's files: the copy (`files`) or the overlay's upper layer (`upper`). */
  filesDir: string;
  hashes: HashCache;
  /** Opaque folders of overlays already read. */
  marks: OpaqueMarks;
  /** Read the person's files again even when their stat is unchanged (before an apply). */
  exact?: boolean;
  dirty?: boolean;
}

/** What the session's layer holds that may differ from the person's folder, and the person's files it removed. */
async function sessionEntries(ctx: ScanContext): Promise<{ entries: LayerEntry[]; deleted: string[] }> {
  const { manifest, filesDir } = ctx;
  if (manifest.backend === 'overlay') return readUpper(filesDir, Object.keys(manifest.files), ctx.marks);
  const entries = await walkLayer(filesDir);
  const present = new Set(entries.map((e) => e.rel));
  return { entries, deleted: Object.keys(manifest.files).filter((rel) => !present.has(rel)) };
}

/**
 * The person's file as the session read it (size, hash, mode) when it is still so on their computer, filling in
 * a hash the record lacks (the overlay backend hashes a file the first time a change needs it); undefined when
 * the person changed it since and the record has no hash of what it was.
 */
async function baseSide(ctx: ScanContext, rel: string): Promise<{ side: FileSide; text: boolean } | undefined> {
  const base = ctx.manifest.files[rel]!;
  const recorded = (text: boolean): { side: FileSide; text: boolean } | undefined =>
    base.sha256 === undefined ? undefined : { side: { size: base.size, sha256: base.sha256, mode: base.mode }, text };
  if (base.sha256 !== undefined && base.text !== undefined) return recorded(base.text);
  // the record lacks the hash (overlay) or the text flag (a record of an earlier Sandpit): read the person's file, when it is as recorded
  const hostFile = join(ctx.manifest.hostPath, rel);
  const info = await lstat(hostFile).catch(() => undefined);
  if (!info?.isFile() || !hostUnchanged(base, info) || !(await parentsAreFolders(ctx.manifest.hostPath, rel)))
    return recorded(false);
  const now = await hashFile(hostFile, info);
  if (!hostUnchanged(base, now.info) || (base.sha256 !== undefined && base.sha256 !== now.sha256))
    return recorded(false);
  base.sha256 = now.sha256;
  base.text = now.text;
  ctx.dirty = true;
  return recorded(now.text);
}

/** The person's file as it is now (a conflict's left side, when the record has no hash of what the session read). */
async function hostSide(hostPath: string, rel: string): Promise<{ side: FileSide; text: boolean } | undefined> {
  if (!(await parentsAreFolders(hostPath, rel))) return undefined;
  const info = await lstat(join(hostPath, rel)).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  const now = await hashFile(join(hostPath, rel));
  return { side: { size: now.size, sha256: now.sha256, mode: now.info.mode & 0o7777 }, text: now.text };
}

/** Whether the person changed their file since the session read it (nothing is then overwritten). */
export async function hostConflict(
  hostPath: string,
  rel: string,
  base: BaseFile | undefined,
  after: FileSide | undefined,
  exact: boolean,
): Promise<string | undefined> {
  if (!(await parentsAreFolders(hostPath, rel)))
    return base ? 'Its folder on your computer was moved or replaced since it was shared.' : undefined;
  const info = await lstat(join(hostPath, rel)).catch(() => undefined);
  if (!base) {
    if (!info) return undefined;
    if (!info.isFile()) return 'Something else now has this name in your folder.';
    const now = await hashFile(join(hostPath, rel));
    return after && now.sha256 === after.sha256
      ? undefined
      : 'You made a file with this name in your folder after it was shared.';
  }
  if (!info) return 'You deleted this file on your computer after it was shared.';
  if (!info.isFile()) return 'This is no longer a file on your computer.';
  if (!exact && hostUnchanged(base, info)) return undefined;
  const now = await hashFile(join(hostPath, rel));
  // already the session's version (an apply cut short before it was recorded): nothing of the person's is lost
  if (after && now.sha256 === after.sha256) return undefined;
  return base.sha256 !== undefined && now.sha256 === base.sha256
    ? undefined
    : 'You changed this file on your computer after it was shared.';
}

/**
 * The changes the session made to a review folder: its layer (the copy, or the overlay's upper layer) against
 * the record of the person's folder. A file the session did not touch (same inode, size, times and mode as
 * Sandpit left it; the change time cannot be set by code in the sandbox) is not read again, nor is a changed
 * file already hashed (hash cache). A deleted file whose content turns up under a new name is a rename. Links
 * and special files are listed, refused.
 */
export async function scanChanges(ctx: ScanContext): Promise<FolderChange[]> {
  const { manifest, filesDir } = ctx;
  const { entries, deleted } = await sessionEntries(ctx);
  const changes: FolderChange[] = [];
  const texts = new Map<FolderChange, { before: boolean; after: boolean }>();
  for (const { rel, info } of entries) {
    const base = manifest.files[rel];
    const kind = base ? 'changed' : 'added';
    if (info.isSymbolicLink() || !info.isFile()) {
      const before = base ? await baseSide(ctx, rel) : undefined;
      changes.push({
        path: rel,
        kind,
        ...(before ? { before: before.side } : {}),
        text: false,
        refused: info.isSymbolicLink()
          ? {
              reason: 'link',
              message: 'A link is never applied to your folder: it could point anywhere on your computer.',
            }
          : { reason: 'special-file', message: 'A device, pipe or socket is never applied to your folder.' },
      });
      continue;
    }
    if (base && layerUntouched(base, info)) continue;
    const hashed = await ctx.hashes.hash(join(filesDir, rel), info);
    const after: FileSide = { size: hashed.size, sha256: hashed.sha256, mode: info.mode & 0o7777 };
    let before = base ? await baseSide(ctx, rel) : undefined;
    if (before && before.side.sha256 === after.sha256 && before.side.mode === after.mode) continue;
    if (base && !before) {
      // the person changed it since it was shared, and the record does not say what it was: compare with theirs now
      before = await hostSide(manifest.hostPath, rel);
      if (before && before.side.sha256 === after.sha256 && before.side.mode === after.mode) continue;
    }
    const change: FolderChange = { path: rel, kind, ...(before ? { before: before.side } : {}), after, text: false };
    texts.set(change, { before: before?.text ?? true, after: hashed.text });
    changes.push(change);
  }
  for (const rel of deleted) {
    const before = (await baseSide(ctx, rel)) ?? (await hostSide(manifest.hostPath, rel));
    const base = manifest.files[rel]!;
    const side = before?.side ?? { size: base.size, sha256: base.sha256 ?? '', mode: base.mode };
    const change: FolderChange = { path: rel, kind: 'deleted', before: side, text: false };
    texts.set(change, { before: before?.text ?? false, after: true });
    changes.push(change);
  }
  pairRenames(changes, texts);
  for (const change of changes) {
    if (change.refused) continue;
    const image = IMAGES[extname(change.path).toLowerCase()];
    if (image) change.image = image;
    const text = texts.get(change);
    change.text = !image && text !== undefined && text.before && text.after;
    const beforeRel = change.from ?? change.path;
    const conflict =
      (await hostConflict(
        manifest.hostPath,
        beforeRel,
        manifest.files[beforeRel],
        change.kind === 'renamed' ? undefined : change.after,
        ctx.exact === true,
      )) ??
      (change.kind === 'renamed'
        ? await hostConflict(manifest.hostPath, change.path, undefined, change.after, ctx.exact === true)
        : undefined);
    if (conflict) change.conflict = conflict;
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Whether a listing failed because the session changed a file while it was read (worth listing again). */
function raced(error: unknown): boolean {
  const e = error as { code?: string; details?: { reason?: string } };
  return (
    e.code === 'ENOENT' ||
    e.code === 'ELOOP' ||
    e.details?.reason === 'changed-while-read' ||
    e.details?.reason === 'special-file'
  );
}

/** scanChanges, listed again (up to 3 times) when code in the sandbox changed a file while it was being read. */
export async function scanSettled(ctx: ScanContext): Promise<FolderChange[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await scanChanges(ctx);
    } catch (error) {
      if (attempt >= 3 || !raced(error)) throw error;
    }
  }
}

/** A deleted file and an added one with the same content become one rename (each used once). */
function pairRenames(changes: FolderChange[], texts: Map<FolderChange, { before: boolean; after: boolean }>): void {
  const added = new Map<string, FolderChange[]>();
  for (const c of changes)
    if (c.kind === 'added' && c.after && !c.refused)
      added.set(c.after.sha256, [...(added.get(c.after.sha256) ?? []), c]);
  for (let i = changes.length - 1; i >= 0; i--) {
    const gone = changes[i]!;
    if (gone.kind !== 'deleted' || !gone.before || gone.before.sha256 === '') continue;
    const match = added.get(gone.before.sha256)?.shift();
    if (!match) continue;
    match.kind = 'renamed';
    match.from = gone.path;
    match.before = gone.before;
    const text = texts.get(match);
    if (text) text.before = texts.get(gone)?.before ?? false;
    changes.splice(i, 1);
  }
}
