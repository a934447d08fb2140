import { spawn } from 'node:child_process';
import type { Stats } from 'node:fs';
import { extract } from 'tar-stream';
import { withTimeout } from '../../util/with-timeout';
import type { LayerEntry } from './layer-entries';
import { sortedPaths } from './sorted-paths';
import { walkTree } from './tree-walk';
import type { TreeEntry } from './tree-walk';

/** The mark overlayfs puts on a folder of the upper layer that hides everything below it in the lower one. */
const OPAQUE = 'SCHILY.xattr.trusted.overlay.opaque';
const TAR_TIMEOUT_MS = 30_000;

/** A whiteout: how overlayfs records, in the upper layer, that a file or folder of the lower one was deleted. */
export function isWhiteout(info: Stats): boolean {
  return info.isCharacterDevice() && info.rdev === 0;
}

/**
 * Which of these folders of the upper layer are opaque (a folder the session deleted and made again: nothing
 * of the person's folder shows through it). Node cannot read extended attributes, so GNU tar reads them: it
 * archives the folders alone (no content, `--no-recursion`) with their `trusted.overlay.*` attributes, which
 * Sandpit reads back from the archive's headers. The names go on stdin, NUL-separated, taken verbatim.
 */
export async function opaqueFolders(upperDir: string, folders: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  if (folders.length === 0) return found;
  const child = spawn(
    'tar',
    [
      '--xattrs',
      '--xattrs-include=trusted.overlay.*',
      '--no-recursion',
      '--null',
      '--verbatim-files-from',
      '-C',
      upperDir,
      '-cf',
      '-',
      '-T',
      '-',
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < 4096) stderr += chunk.toString('utf8');
  });
  const parse = new Promise<void>((resolve, reject) => {
    const reader = extract();
    reader.on('entry', (header, stream, next) => {
      const name = header.name.replace(/^\.\//, '').replace(/\/$/, '');
      if (header.type === 'directory' && (header.pax as Record<string, string> | undefined)?.[OPAQUE] === 'y')
        found.add(name);
      stream.on('end', next);
      stream.resume();
    });
    reader.on('finish', resolve);
    reader.on('error', reject);
    child.stdout.pipe(reader);
  });
  const exited = new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? -1));
  });
  child.stdin.end(Buffer.from(folders.map((f) => `./${f}\u0000`).join(''), 'utf8'));
  const [code] = await withTimeout(Promise.all([exited, parse]), TAR_TIMEOUT_MS, 'reading the overlay folder marks');
  if (code !== 0)
    throw new Error(`tar could not read the overlay's folder marks (exit ${code}): ${stderr.trim().slice(0, 300)}`);
  return found;
}

const MAX_MARKS = 100_000;

/**
 * Which folders of upper layers are opaque, remembered per folder (device, inode and change time: overlayfs
 * marks a folder opaque when it makes it, or when it renames it over a whiteout, and either changes its ctime,
 * which code in a sandbox cannot set back), so tar reads only folders not seen as they are now.
 */
export class OpaqueMarks {
  private readonly known = new Map<string, boolean>();

  async opaque(upperDir: string, dirs: readonly TreeEntry[]): Promise<string[]> {
    const key = (d: TreeEntry): string => `${d.info.dev}:${d.info.ino}:${d.info.ctimeMs}`;
    const unknown = dirs.filter((d) => !this.known.has(key(d)));
    const found = await opaqueFolders(
      upperDir,
      unknown.map((d) => d.rel),
    );
    for (const d of unknown) {
      if (this.known.size >= MAX_MARKS) this.known.delete(this.known.keys().next().value!);
      this.known.set(key(d), found.has(d.rel));
    }
    return dirs.filter((d) => this.known.get(key(d)) === true).map((d) => d.rel);
  }
}

/** What the session's upper layer says: its own files (and links, special files), and the person's files it hid. */
export interface UpperReading {
  entries: LayerEntry[];
  /** Files of the person's folder (as recorded) the session deleted: whited out, under an opaque folder, or replaced by something else. */
  deleted: string[];
}

/**
 * Reads an overlay's upper layer against the record of the person's folder (`base`: the recorded files), links
 * never followed: regular files, links and special files are the session's own; a whiteout hides the person's
 * file or folder at its place; an opaque folder hides everything of the person's below it; a file where the
 * person had a folder (or a folder where they had a file) hides theirs too.
 */
export async function readUpper(upperDir: string, base: readonly string[], marks: OpaqueMarks): Promise<UpperReading> {
  const recorded = sortedPaths(base);
  const entries: LayerEntry[] = [];
  const hidden: string[] = [];
  const dirs: TreeEntry[] = [];
  const walked = await walkTree(upperDir);
  for (const dir of walked.dirs) {
    // the person's file at this place is hidden by a folder; their folder here may be opaque (read below)
    if (recorded.has(dir.rel)) hidden.push(dir.rel);
    if (recorded.hasUnder(dir.rel)) dirs.push(dir);
  }
  for (const { rel, info } of walked.entries) {
    // the person's folder at this place is hidden (deleted, or now a file, a link …)
    hidden.push(...recorded.under(rel));
    if (isWhiteout(info)) {
      if (recorded.has(rel)) hidden.push(rel);
      continue;
    }
    entries.push({ rel, info });
  }
  const present = new Set(entries.map((e) => e.rel));
  for (const dir of await marks.opaque(upperDir, dirs)) hidden.push(...recorded.under(dir));
  const deleted = [...new Set(hidden)].filter((rel) => !present.has(rel));
  return { entries, deleted };
}
