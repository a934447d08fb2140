import { pack } from 'tar-stream';
import type { Pack } from 'tar-stream';
import { SandpitError } from '../../shared/api/errors';
import type { FileEntry } from '../../shared/domain/artifact';
import { PathSet, parentsOf } from './path-set';
import { normalizeRelativePath } from './safe-path';
import { walkTar } from './tar-walk';
import type { TarEntryBody, TarHeader } from './tar-walk';

/** The sandbox user and group inside every session container. */
export const SANDBOX_UID = 10_001;
export const SANDBOX_GID = 10_001;
export const DEFAULT_FILE_MODE = 0o644;
export const DEFAULT_FOLDER_MODE = 0o755;
export const DEFAULT_TAR_TIMEOUT_MS = 60_000;
/** Raw bytes allowed per entry on top of its content: headers, a pax record with a 4 KiB path, padding. */
const ENTRY_OVERHEAD_BYTES = 16 * 1024;
/** Raw bytes allowed on top of that for the end-of-archive blocks and record padding. */
const ARCHIVE_SLACK_BYTES = 1024 * 1024;

export interface PackFile {
  /** Relative to /workspace; validated with normalizeRelativePath. */
  path: string;
  content: Buffer;
  /** Permission bits only (anything above 0o777 is dropped). Default 0o644. */
  mode?: number;
}

export interface PackOptions {
  maxFileBytes: number;
  maxTotalBytes: number;
  /** Modification time of every entry. Default: now. */
  mtime?: Date;
  timeoutMs?: number;
}

export interface ParseTarOptions {
  maxFileBytes: number;
  maxTotalBytes: number;
  maxEntries: number;
  /** Accept folder entries (they are checked, then left out of the result). Default false. */
  allowDirectories?: boolean;
  timeoutMs?: number;
  /** Raw archive bytes accepted. Default maxTotalBytes + 16 KiB per entry + 1 MiB. */
  maxArchiveBytes?: number;
}

export interface ParsedFile {
  path: string;
  content: Buffer;
  /** Permission bits (0o777 mask). */
  mode: number;
  mtime?: Date;
}

export interface ListTarOptions {
  maxEntries: number;
  timeoutMs?: number;
  /** Raw archive bytes accepted. Default: no cap beyond the timeout (contents are discarded). */
  maxArchiveBytes?: number;
  /** Leave out entries with an invalid name instead of refusing the whole archive. Default false. */
  skipInvalidNames?: boolean;
}

function limitExceeded(message: string, details: Record<string, unknown>): SandpitError {
  return new SandpitError('LIMIT_EXCEEDED', message, details);
}

function validMtime(date: Date | undefined): Date | undefined {
  return date !== undefined && Number.isFinite(date.getTime()) ? date : undefined;
}

/** A tar entry's name, normalized; '.' and './' are the root (''), only acceptable for folders. */
function entryPath(header: TarHeader): string {
  return normalizeRelativePath(header.name, { allowRoot: header.type === 'directory' });
}

const KIND_NAMES: Partial<Record<NonNullable<TarHeader['type']>, string>> = {
  symlink: 'symbolic links',
  link: 'hard links',
  fifo: 'FIFOs',
  'character-device': 'character devices',
  'block-device': 'block devices',
  'contiguous-file': 'contiguous files',
  directory: 'folders',
};

function refuseKind(path: string, type: TarHeader['type']): never {
  const kind = (type && KIND_NAMES[type]) ?? `entries of type ${JSON.stringify(type ?? 'unknown')}`;
  throw new SandpitError('INVALID_INPUT', `Tar entry ${JSON.stringify(path)} is refused: ${kind} are not allowed`, {
    path,
    type: type ?? 'unknown',
  });
}

/** Consumes an entry's body without keeping it. */
function discard(body: TarEntryBody): Promise<void> {
  return new Promise((resolve, reject) => {
    body.on('end', () => resolve());
    body.on('error', reject);
    body.resume();
  });
}

/** Reads an entry's body, failing as soon as it grows past `cap` bytes. */
export function readBody(body: TarEntryBody, path: string, cap: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    body.on('data', (data: unknown) => {
      if (failed) return;
      const chunk = data as Buffer;
      size += chunk.length;
      if (size > cap) {
        failed = true;
        reject(limitExceeded(`Tar entry ${JSON.stringify(path)} is larger than ${cap} bytes`, { path, cap }));
        return;
      }
      chunks.push(chunk);
    });
    body.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks, size));
    });
    body.on('error', reject);
  });
}

/**
 * Parses a tar archive into regular files. Refuses (INVALID_INPUT) links, FIFOs, devices, unknown
 * entry types, folders unless allowed, names that are absolute, contain `..`, NUL or control
 * characters (pax and GNU long names included, as tar-stream applies them), duplicate names and
 * file/folder clashes. Fails with LIMIT_EXCEEDED as soon as a declared size, the entry count, the
 * raw archive size or the timeout crosses its cap; nothing beyond a cap is ever buffered.
 */
export async function parseTar(
  source: NodeJS.ReadableStream | Buffer,
  options: ParseTarOptions,
): Promise<ParsedFile[]> {
  const files: ParsedFile[] = [];
  const names = new PathSet();
  let entries = 0;
  let total = 0;
  const maxArchiveBytes =
    options.maxArchiveBytes ??
    options.maxTotalBytes + (options.maxEntries + 1) * ENTRY_OVERHEAD_BYTES + ARCHIVE_SLACK_BYTES;

  await walkTar(source, { timeoutMs: options.timeoutMs ?? DEFAULT_TAR_TIMEOUT_MS, maxArchiveBytes }, (header, body) => {
    entries += 1;
    if (entries > options.maxEntries) {
      throw limitExceeded(`The tar archive has more than ${options.maxEntries} entries`, {
        maxEntries: options.maxEntries,
      });
    }
    const path = entryPath(header);
    const size = header.size ?? 0;

    if (header.type === 'directory' && options.allowDirectories === true) {
      if (size !== 0)
        throw new SandpitError('INVALID_INPUT', `Tar entry ${JSON.stringify(path)} is a folder with a size`);
      if (path !== '') names.addFolder(path);
      return discard(body);
    }
    if (header.type !== 'file') refuseKind(path, header.type);

    if (size > options.maxFileBytes) {
      throw limitExceeded(
        `Tar entry ${JSON.stringify(path)} is ${size} bytes, over the ${options.maxFileBytes} byte limit`,
        {
          path,
          size,
          maxFileBytes: options.maxFileBytes,
        },
      );
    }
    total += size;
    if (total > options.maxTotalBytes) {
      throw limitExceeded(`The tar archive holds more than ${options.maxTotalBytes} bytes of files`, {
        maxTotalBytes: options.maxTotalBytes,
      });
    }
    names.addFile(path);

    const mtime = validMtime(header.mtime);
    const mode = (header.mode ?? DEFAULT_FILE_MODE) & 0o777;
    return readBody(body, path, Math.min(size, options.maxFileBytes)).then((content) => {
      files.push(mtime ? { path, content, mode, mtime } : { path, content, mode });
    });
  });
  return files;
}

function entryType(type: TarHeader['type']): FileEntry['type'] {
  if (type === 'file' || type === 'contiguous-file') return 'file';
  if (type === 'directory' || type === 'symlink') return type;
  return 'other';
}

/**
 * Lists a tar archive's entries (every type) without keeping any content, e.g. to show the files
 * of a folder. Names are validated like parseTar's; a later entry with the same name replaces an
 * earlier one (tar semantics). The archive root ('.', './') is left out.
 */
export async function listTar(source: NodeJS.ReadableStream | Buffer, options: ListTarOptions): Promise<FileEntry[]> {
  const listing = new Map<string, FileEntry>();
  let entries = 0;

  const walk = {
    timeoutMs: options.timeoutMs ?? DEFAULT_TAR_TIMEOUT_MS,
    maxArchiveBytes: options.maxArchiveBytes ?? Infinity,
  };
  await walkTar(source, walk, (header, body) => {
    entries += 1;
    if (entries > options.maxEntries) {
      throw limitExceeded(`The tar archive has more than ${options.maxEntries} entries`, {
        maxEntries: options.maxEntries,
      });
    }
    let path: string;
    try {
      path = entryPath(header);
    } catch (error) {
      if (options.skipInvalidNames !== true) throw error;
      path = '';
    }
    if (header.type === 'directory' && (header.size ?? 0) !== 0) {
      throw new SandpitError('INVALID_INPUT', `Tar entry ${JSON.stringify(path)} is a folder with a size`);
    }
    if (path !== '') {
      const type = entryType(header.type);
      const entry: FileEntry = { path, type, size: type === 'file' ? (header.size ?? 0) : 0 };
      const mtime = validMtime(header.mtime);
      if (mtime) entry.modifiedAt = mtime.toISOString();
      listing.delete(path); // a later entry replaces an earlier one and is listed where it appears
      listing.set(path, entry);
    }
    return discard(body);
  });
  return [...listing.values()];
}

type PackHeader = Parameters<Pack['entry']>[0];

interface PlannedEntry {
  header: PackHeader;
  content?: Buffer;
}

/** Validates the files and lays out the archive: each file preceded by the folders it needs. */
function planArchive(files: PackFile[], options: PackOptions): PlannedEntry[] {
  const mtime = options.mtime ?? new Date();
  const names = new PathSet();
  const folders = new Set<string>();
  const planned: PlannedEntry[] = [];
  let total = 0;

  for (const file of files) {
    const path = normalizeRelativePath(file.path);
    if (!Buffer.isBuffer(file.content))
      throw new SandpitError('INVALID_INPUT', `File ${JSON.stringify(path)} has no content`);
    const size = file.content.length;
    if (size > options.maxFileBytes) {
      throw limitExceeded(
        `File ${JSON.stringify(path)} is ${size} bytes, over the ${options.maxFileBytes} byte limit`,
        {
          path,
          size,
          maxFileBytes: options.maxFileBytes,
        },
      );
    }
    total += size;
    if (total > options.maxTotalBytes) {
      throw limitExceeded(`The files add up to more than ${options.maxTotalBytes} bytes`, {
        maxTotalBytes: options.maxTotalBytes,
      });
    }
    names.addFile(path);
    for (const folder of parentsOf(path)) {
      if (folders.has(folder)) continue;
      folders.add(folder);
      planned.push({
        header: {
          name: folder,
          type: 'directory',
          mode: DEFAULT_FOLDER_MODE,
          uid: SANDBOX_UID,
          gid: SANDBOX_GID,
          mtime,
        },
      });
    }
    const mode = file.mode === undefined ? DEFAULT_FILE_MODE : file.mode & 0o777;
    planned.push({
      header: { name: path, type: 'file', mode, uid: SANDBOX_UID, gid: SANDBOX_GID, mtime, size },
      content: file.content,
    });
  }
  return planned;
}

/**
 * Builds a tar of regular files (owned by 10001:10001, 0644 unless told) with the folders they
 * need (10001:10001, 0755). Names are validated with normalizeRelativePath; duplicates and
 * file/folder clashes are refused (INVALID_INPUT); size caps fail with LIMIT_EXCEEDED before anything is built.
 */
export function packFiles(files: PackFile[], options: PackOptions): Promise<Buffer> {
  let planned: PlannedEntry[];
  try {
    planned = planArchive(files, options);
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TAR_TIMEOUT_MS;

  return new Promise<Buffer>((resolve, reject) => {
    const packer = pack();
    const chunks: Buffer[] = [];
    const fail = (error: unknown): void => {
      clearTimeout(timer);
      packer.destroy();
      reject(error instanceof Error ? error : new SandpitError('INTERNAL', 'Building the tar archive failed'));
    };
    const timer = setTimeout(() => {
      fail(limitExceeded(`Building the tar archive took longer than ${timeoutMs} ms`, { timeoutMs }));
    }, timeoutMs);
    packer.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
    packer.on('end', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    packer.on('error', fail);
    try {
      for (const entry of planned) {
        if (entry.content === undefined) packer.entry(entry.header);
        else packer.entry(entry.header, entry.content);
      }
      packer.finalize();
    } catch (error) {
      fail(error);
    }
  });
}
