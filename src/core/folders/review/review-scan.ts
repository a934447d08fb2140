import type { Stats } from 'node:fs';
import { lstat, opendir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { FileSide, FolderChange } from '../../../shared/domain/folder-changes';
import { hashFile, parentsAreFolders } from './review-files';
import type { BaseFile, ReviewManifest } from './review-manifest';

/** Files past this are summarised, never diffed or read whole. */
export const MAX_DIFF_BYTES = 1024 * 1024;

const IMAGES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};

interface LayerEntry {
  rel: string;
  info: Stats;
}

/** Every entry of the layer's `files` folder, links never followed. */
async function walkLayer(filesDir: string): Promise<LayerEntry[]> {
  const out: LayerEntry[] = [];
  const walk = async (rel: string): Promise<void> => {
    const names: string[] = [];
    for await (const entry of await opendir(rel === '' ? filesDir : join(filesDir, rel)))
      names.push(rel === '' ? entry.name : `${rel}/${entry.name}`);
    // one folder's entries stat'ed together (a 10,000-file folder lists in a fraction of the serial time)
    const infos = await Promise.all(names.map((childRel) => lstat(join(filesDir, childRel))));
    for (let i = 0; i < names.length; i++) {
      if (infos[i]!.isDirectory()) await walk(names[i]!);
      else out.push({ rel: names[i]!, info: infos[i]! });
    }
  };
  await walk('');
  return out;
}

function untouched(base: BaseFile, info: Stats): boolean {
  const l = base.layer;
  return (
    l.ino === info.ino &&
    l.size === info.size &&
    l.mtimeMs === info.mtimeMs &&
    l.ctimeMs === info.ctimeMs &&
    l.mode === (info.mode & 0o7777)
  );
}

function baseSide(base: BaseFile): FileSide {
  return { size: base.size, sha256: base.sha256, mode: base.mode };
}

async function isText(path: string, size: number): Promise<boolean> {
  if (size > MAX_DIFF_BYTES) return false;
  const bytes = await readFile(path).catch(() => undefined);
  if (!bytes || bytes.includes(0)) return false;
  return Buffer.from(bytes.toString('utf8'), 'utf8').equals(bytes);
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
  const h = base.host;
  if (
    !exact &&
    info.size === base.size &&
    info.ino === h.ino &&
    info.mtimeMs === h.mtimeMs &&
    info.ctimeMs === h.ctimeMs
  )
    return undefined;
  const now = await hashFile(join(hostPath, rel));
  // already the session's version (an apply cut short before it was recorded): nothing of the person's is lost
  if (after && now.sha256 === after.sha256) return undefined;
  return now.sha256 === base.sha256 ? undefined : 'You changed this file on your computer after it was shared.';
}

/**
 * The changes the session made to a review folder: the layer against the record of the person's folder.
 * A file the session did not touch (same inode, size, times and mode as when it was copied; the change time
 * cannot be set by code in the sandbox) is not read again. A deleted file whose content turns up under a
 * new name is a rename. Links and special files are listed, refused.
 */
export async function scanChanges(
  manifest: ReviewManifest,
  filesDir: string,
  options: { exact?: boolean } = {},
): Promise<FolderChange[]> {
  const entries = await walkLayer(filesDir);
  const seen = new Set<string>();
  const changes: FolderChange[] = [];
  for (const { rel, info } of entries) {
    seen.add(rel);
    const base = manifest.files[rel];
    const kind = base ? 'changed' : 'added';
    if (info.isSymbolicLink()) {
      changes.push({
        path: rel,
        kind,
        ...(base ? { before: baseSide(base) } : {}),
        text: false,
        refused: {
          reason: 'link',
          message: 'A link is never applied to your folder: it could point anywhere on your computer.',
        },
      });
      continue;
    }
    if (!info.isFile()) {
      changes.push({
        path: rel,
        kind,
        ...(base ? { before: baseSide(base) } : {}),
        text: false,
        refused: { reason: 'special-file', message: 'A device, pipe or socket is never applied to your folder.' },
      });
      continue;
    }
    if (base && untouched(base, info)) continue;
    const { sha256, size } = await hashFile(join(filesDir, rel));
    const after: FileSide = { size, sha256, mode: info.mode & 0o7777 };
    if (base && base.sha256 === sha256 && base.mode === after.mode) continue;
    changes.push({ path: rel, kind, ...(base ? { before: baseSide(base) } : {}), after, text: false });
  }
  for (const [rel, base] of Object.entries(manifest.files)) {
    if (seen.has(rel)) continue;
    changes.push({ path: rel, kind: 'deleted', before: baseSide(base), text: false });
  }
  pairRenames(changes);
  for (const change of changes) {
    if (change.refused) continue;
    const image = IMAGES[extname(change.path).toLowerCase()];
    if (image) change.image = image;
    const afterText = change.after ? await isText(join(filesDir, change.path), change.after.size) : true;
    const beforeRel = change.from ?? change.path;
    const beforeText = change.before ? await isText(join(manifest.hostPath, beforeRel), change.before.size) : true;
    change.text = !image && afterText && beforeText;
    const conflict =
      (await hostConflict(
        manifest.hostPath,
        beforeRel,
        manifest.files[beforeRel],
        change.kind === 'renamed' ? undefined : change.after,
        options.exact === true,
      )) ??
      (change.kind === 'renamed'
        ? await hostConflict(manifest.hostPath, change.path, undefined, change.after, options.exact === true)
        : undefined);
    if (conflict) change.conflict = conflict;
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** A deleted file and an added one with the same content become one rename (each used once). */
function pairRenames(changes: FolderChange[]): void {
  const added = new Map<string, FolderChange[]>();
  for (const c of changes)
    if (c.kind === 'added' && c.after && !c.refused)
      added.set(c.after.sha256, [...(added.get(c.after.sha256) ?? []), c]);
  for (let i = changes.length - 1; i >= 0; i--) {
    const gone = changes[i]!;
    if (gone.kind !== 'deleted' || !gone.before) continue;
    const match = added.get(gone.before.sha256)?.shift();
    if (!match) continue;
    match.kind = 'renamed';
    match.from = gone.path;
    match.before = gone.before;
    changes.splice(i, 1);
  }
}
