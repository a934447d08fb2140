import { posix } from 'node:path';
import { pack } from 'tar-stream';
import type { Pack } from 'tar-stream';
import { SandpitError } from '../../shared/api/errors';
import { SANDBOX_GID, SANDBOX_UID } from '../files/safe-tar';
import { walkTar } from '../files/tar-walk';
import type { TarEntryBody, TarHeader } from '../files/tar-walk';

/** What came out of a package store: a clean archive of it, or nothing when it is empty. */
export interface PackageArchive {
  tar: Buffer;
  /** Regular files' sizes added up. */
  bytes: number;
  entries: number;
}

const ENTRY_SLACK_BYTES = 16 * 1024;
const MAX_ENTRIES = 200_000;

/**
 * The entry's path below the archive's top folder ("packages/x/y" → "x/y"; undefined for the top folder
 * itself), or, for an archive without one (`topFolder` false: a clean archive, as a snapshot stores it), the
 * entry's own path.
 */
function innerPath(name: string, topFolder: boolean): string | undefined {
  const parts = name.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.some((p) => p === '..' || p.includes('\0'))) throw new SandpitError('INVALID_INPUT', `The package store holds an invalid name ${JSON.stringify(name.slice(0, 200))}.`);
  const skip = topFolder ? 1 : 0;
  return parts.length <= skip ? undefined : parts.slice(skip).join('/');
}

/** A link is kept only when it points inside the store, relatively (as npm's `.bin` links do). */
function linkStaysInside(path: string, target: string): boolean {
  if (target === '' || target.startsWith('/') || target.includes('\0')) return false;
  const resolved = posix.normalize(posix.join(posix.dirname(path), target));
  return resolved !== '..' && !resolved.startsWith('../') && !resolved.startsWith('/');
}

function readAll(body: TarEntryBody, cap: number, path: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    body.on('data', (data: unknown) => {
      const chunk = data as Buffer;
      size += chunk.length;
      if (size > cap) {
        reject(new SandpitError('LIMIT_EXCEEDED', `The installed packages are larger than ${cap} bytes (at ${path}): a snapshot cannot hold them.`, { cap }));
        body.destroy();
        return;
      }
      chunks.push(chunk);
    });
    body.on('end', () => resolve(Buffer.concat(chunks)));
    body.on('error', reject);
  });
}

function drain(body: TarEntryBody): Promise<void> {
  return new Promise((resolve, reject) => {
    body.on('end', () => resolve());
    body.on('error', reject);
    body.resume();
  });
}

/**
 * Re-packs the engine's archive of a package store as a clean one: folders, regular files and links that
 * stay inside the store, each owned by the sandbox user with permission bits only (no set-id bits).
 * Hard links, devices, FIFOs and links that point outside are left out. The archive's content came from
 * installers (untrusted): names are checked, sizes capped, the walk bounded in time. A snapshot's archive is
 * cleaned again before it is unpacked (`topFolder: false`): the data folder's files may have been edited.
 */
export async function cleanPackageArchive(
  source: NodeJS.ReadableStream | Buffer,
  maxBytes: number,
  timeoutMs: number,
  { topFolder = true }: { topFolder?: boolean } = {},
): Promise<PackageArchive | undefined> {
  const out = pack();
  const chunks: Buffer[] = [];
  let outBytes = 0;
  out.on('data', (data: unknown) => {
    const chunk = data as Buffer;
    chunks.push(chunk);
    outBytes += chunk.length;
  });
  const ended = new Promise<void>((resolve, reject) => {
    out.on('end', () => resolve());
    out.on('error', reject);
  });
  let bytes = 0;
  let entries = 0;
  const add = (header: Parameters<Pack['entry']>[0], content?: Buffer): Promise<void> =>
    new Promise((resolve, reject) => {
      out.entry(header, content ?? '', (error) => (error ? reject(error) : resolve()));
    });
  try {
    await walkTar(source, { timeoutMs, maxArchiveBytes: maxBytes + MAX_ENTRIES * ENTRY_SLACK_BYTES }, async (header: TarHeader, body) => {
      const path = innerPath(header.name, topFolder);
      const common = { uid: SANDBOX_UID, gid: SANDBOX_GID, mtime: header.mtime ?? new Date(0) };
      if (path === undefined) return drain(body);
      entries += 1;
      if (entries > MAX_ENTRIES) throw new SandpitError('LIMIT_EXCEEDED', `The installed packages hold more than ${MAX_ENTRIES} files: a snapshot cannot hold them.`);
      if (header.type === 'directory') {
        await drain(body);
        await add({ ...common, name: `${path}/`, type: 'directory', mode: ((header.mode ?? 0o755) & 0o755) | 0o700 });
      } else if (header.type === 'file' || header.type === 'contiguous-file') {
        const content = await readAll(body, maxBytes - bytes, path);
        bytes += content.length;
        await add({ ...common, name: path, type: 'file', mode: ((header.mode ?? 0o644) & 0o755) | 0o600, size: content.length }, content);
      } else if (header.type === 'symlink' && header.linkname && linkStaysInside(path, header.linkname)) {
        await drain(body);
        await add({ ...common, name: path, type: 'symlink', linkname: header.linkname, mode: 0o777 });
      } else {
        await drain(body);
      }
    });
  } catch (error) {
    out.destroy();
    throw error;
  }
  out.finalize();
  await ended;
  if (entries === 0) return undefined;
  return { tar: Buffer.concat(chunks, outBytes), bytes, entries };
}
