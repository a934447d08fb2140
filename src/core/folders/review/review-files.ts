import { isUtf8 } from 'node:buffer';
import { createHash, randomBytes } from 'node:crypto';
import type { Hash } from 'node:crypto';
import { constants } from 'node:fs';
import type { Stats } from 'node:fs';
import { chmod, chown, lstat, mkdir, open, rename, rm } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { SandpitError } from '../../../shared/api/errors';

const CHUNK = 1024 * 1024;

/** Files past this are summarised, never diffed, never read whole, never called text. */
export const MAX_TEXT_BYTES = 1024 * 1024;

/** What hashing a file found: its content's SHA-256 (hex), its size, whether it is text, and the file's stat after the read. */
export interface HashedFile {
  sha256: string;
  size: number;
  /** UTF-8 without NUL and at most MAX_TEXT_BYTES: a line diff can show it. */
  text: boolean;
  info: Stats;
}

/** Refuses a file that is not the one a listing saw (same device and inode): a path swapped for a link in between. */
export function assertSameFile(path: string, info: Stats, expected: { dev: number; ino: number } | undefined): void {
  if (expected && (info.dev !== expected.dev || info.ino !== expected.ino))
    throw new SandpitError('CONFLICT', `${path} changed while it was read: list the changes again.`, {
      reason: 'changed-while-read',
    });
}

/**
 * Hashes a file read through a handle opened without following a link (a regular file only), and tells whether
 * it is text, in one read. `expected` (device and inode) refuses another file than the one a listing saw.
 */
export async function hashFile(path: string, expected?: { dev: number; ino: number }): Promise<HashedFile> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new SandpitError('DENIED', `${path} is not a regular file.`, { reason: 'special-file' });
    assertSameFile(path, info, expected);
    const hash = createHash('sha256');
    let read: { sha256: string; size: number; text: boolean };
    const first = info.size <= MAX_TEXT_BYTES ? await handle.readFile() : undefined;
    if (first && first.length <= MAX_TEXT_BYTES) {
      hash.update(first);
      read = { sha256: hash.digest('hex'), size: first.length, text: !first.includes(0) && isUtf8(first) };
    } else {
      if (first) hash.update(first);
      read = { ...(await hashRest(handle, hash, first?.length ?? 0)), text: false };
    }
    // the file as it is after the read: a caller keeping the hash checks nothing changed it meanwhile
    return { ...read, info: await handle.stat() };
  } finally {
    await handle.close();
  }
}

/**
 * A file's content when it is exactly the content listed (its SHA-256), read without following a link; undefined
 * when it is larger than `maxBytes`, gone, or not that content any more (changed, or its path now leads elsewhere).
 */
export async function readVerified(path: string, sha256: string, maxBytes: number): Promise<Buffer | undefined> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    const info = await handle.stat();
    if (!info.isFile() || info.size > maxBytes) return undefined;
    const bytes = await handle.readFile();
    return bytes.length <= maxBytes && createHash('sha256').update(bytes).digest('hex') === sha256 ? bytes : undefined;
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}

async function hashRest(handle: FileHandle, hash: Hash, already: number): Promise<{ sha256: string; size: number }> {
  const buffer = Buffer.allocUnsafe(CHUNK);
  let size = already;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, CHUNK, null);
    if (bytesRead === 0) break;
    hash.update(buffer.subarray(0, bytesRead));
    size += bytesRead;
  }
  return { sha256: hash.digest('hex'), size };
}

/** What a copy did: the bytes' hash and count, and the source as it was read (a regular file, checked on the open handle). */
export interface CopiedFile {
  sha256: string;
  size: number;
  /** UTF-8 without NUL, at most MAX_TEXT_BYTES. */
  text: boolean;
  source: Stats;
}

/**
 * Copies a regular file to `target` through a temp file beside it, renamed over at the end (a crash leaves
 * the old target or the new one), hashing as it reads. The source is opened without following a link and
 * must be a regular file; `expect` (a hash) refuses, before the rename, a source that is not what was reviewed.
 */
export async function copyFileAtomic(
  source: string,
  target: string,
  options: {
    mode: number;
    owner?: { uid: number; gid: number };
    expect?: string;
    sync?: boolean;
    /** Told the temp file's path before it is created (the apply's journal: src/core/folders/review/apply-temps.ts). */
    onTemp?: (temp: string) => Promise<void>;
  },
): Promise<CopiedFile> {
  const input = await open(source, constants.O_RDONLY | constants.O_NOFOLLOW);
  const temp = join(dirname(target), `.${basename(target)}.sandpit-${randomBytes(5).toString('hex')}.tmp`);
  try {
    await options.onTemp?.(temp);
    const info = await input.stat();
    if (!info.isFile())
      throw new SandpitError('DENIED', `${source} is not a regular file.`, { reason: 'special-file' });
    const output = await open(
      temp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    const hash = createHash('sha256');
    let size = 0;
    let text = true;
    try {
      // a small file gets a small buffer (a 10,000-file copy would otherwise churn through 10 GiB of buffers)
      const chunk = Math.min(CHUNK, Math.max(info.size, 4096));
      const buffer = Buffer.allocUnsafe(chunk);
      for (;;) {
        const { bytesRead } = await input.read(buffer, 0, chunk, null);
        if (bytesRead === 0) break;
        const bytes = buffer.subarray(0, bytesRead);
        // a text file (at most MAX_TEXT_BYTES = CHUNK) is read in one piece, unless it grew meanwhile
        text = text && size === 0 && !bytes.includes(0) && isUtf8(bytes);
        hash.update(bytes);
        for (let off = 0; off < bytesRead;) off += (await output.write(buffer, off, bytesRead - off)).bytesWritten;
        size += bytesRead;
      }
      if (options.sync !== false) await output.sync();
    } finally {
      await output.close();
    }
    const sha256 = hash.digest('hex');
    if (options.expect !== undefined && options.expect !== sha256) {
      throw new SandpitError('CONFLICT', `${source} changed after it was reviewed: review it again.`, {
        reason: 'changed-since-review',
      });
    }
    if (options.owner) await chown(temp, options.owner.uid, options.owner.gid).catch(() => undefined);
    await chmod(temp, options.mode & 0o7777);
    await rename(temp, target);
    return { sha256, size, text, source: info };
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  } finally {
    await input.close();
  }
}

/** Writes `content` to `target` through a temp file beside it (never following a link), with this mode and owner, renamed over at the end. */
export async function writeContentAtomic(
  target: string,
  content: Buffer,
  options: { mode: number; owner?: { uid: number; gid: number } },
): Promise<void> {
  const temp = join(dirname(target), `.${basename(target)}.sandpit-${randomBytes(5).toString('hex')}.tmp`);
  try {
    const output = await open(
      temp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    try {
      await output.writeFile(content);
    } finally {
      await output.close();
    }
    if (options.owner) await chown(temp, options.owner.uid, options.owner.gid).catch(() => undefined);
    await chmod(temp, options.mode & 0o7777);
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
}

/** `rel` split into its parts, refused when it could leave the folder (absolute, `..`, empty parts, NUL). */
export function safeParts(rel: string): string[] {
  const parts = rel.split('/');
  if (
    rel === '' ||
    rel.startsWith('/') ||
    rel.includes('\u0000') ||
    parts.some((p) => p === '' || p === '.' || p === '..')
  ) {
    throw new SandpitError('DENIED', `"${rel}" is not a path inside the folder.`, { reason: 'outside-folder' });
  }
  return parts;
}

/**
 * Makes sure every folder above `rel` inside `root` is a real folder (never a link: a link there would take
 * a write outside the folder), creating the missing ones with `dirMode`. Returns the full path of `rel`.
 */
export async function ensureParents(
  root: string,
  rel: string,
  dirMode = 0o755,
  owner?: { uid: number; gid: number },
): Promise<string> {
  const parts = safeParts(rel);
  let at = root;
  for (const part of parts.slice(0, -1)) {
    at = join(at, part);
    const info = await lstat(at).catch(() => undefined);
    if (info === undefined) {
      // another file applied at the same time may have just made it
      const made = await mkdir(at, { mode: dirMode }).then(
        () => true,
        (error: NodeJS.ErrnoException) => {
          if (error.code !== 'EEXIST') throw error;
          return false;
        },
      );
      if (made) {
        if (owner) await chown(at, owner.uid, owner.gid).catch(() => undefined);
        continue;
      }
      const now = await lstat(at);
      if (now.isDirectory()) continue;
      throw new SandpitError(
        'DENIED',
        `${rel} would be written through ${at}, which is not a folder: it would leave the folder.`,
        {
          reason: 'outside-folder',
        },
      );
    }
    if (!info.isDirectory()) {
      throw new SandpitError(
        'DENIED',
        `${rel} would be written through ${at}, which is ${info.isSymbolicLink() ? 'a link' : 'not a folder'}: it would leave the folder.`,
        { reason: 'outside-folder' },
      );
    }
  }
  return join(at, parts[parts.length - 1]!);
}

/** Every folder above `rel` inside `root` exists and is a real folder (nothing on the way is a link). */
export async function parentsAreFolders(root: string, rel: string): Promise<boolean> {
  const parts = safeParts(rel);
  let at = root;
  for (const part of parts.slice(0, -1)) {
    at = join(at, part);
    const info = await lstat(at).catch(() => undefined);
    if (!info?.isDirectory()) return false;
  }
  return true;
}
