import { Readable } from 'node:stream';
import { SandpitError } from '../../shared/api/errors';
import { PathSet, parentsOf } from './path-set';
import { normalizeRelativePath } from './safe-path';
import { DEFAULT_FILE_MODE, DEFAULT_FOLDER_MODE, SANDBOX_GID, SANDBOX_UID } from './safe-tar';

/** A file to stream: its size is known before its bytes are loaded (and checked against them). */
export interface StreamFile {
  /** Relative to /workspace; validated with normalizeRelativePath. */
  path: string;
  size: number;
  load(): Promise<Buffer>;
}

export interface StreamTarOptions {
  maxFileBytes: number;
  maxTotalBytes: number;
  /** Modification time of every entry. Default: now. */
  mtime?: Date;
  /** Files loaded ahead of the one being written (reads overlap the writing). Default 4. */
  readAhead?: number;
}

const BLOCK = 512;
const ZEROS = Buffer.alloc(BLOCK * 2);

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

/** One ustar header block (the name given here fits: ASCII, at most 100 bytes). */
function ustarBlock(name: string, type: '0' | '5' | 'x', mode: number, size: number, mtime: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  block.write(name, 0, 100, 'utf8');
  block.write(octal(mode, 8), 100, 'ascii');
  block.write(octal(SANDBOX_UID, 8), 108, 'ascii');
  block.write(octal(SANDBOX_GID, 8), 116, 'ascii');
  block.write(octal(size, 12), 124, 'ascii');
  block.write(octal(mtime, 12), 136, 'ascii');
  block.write('        ', 148, 'ascii');
  block.write(type, 156, 'ascii');
  block.write('ustar\u000000', 257, 'ascii');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return block;
}

/** A pax record `"<len> path=<name>\n"`, where len counts the whole record, itself included. */
function paxRecord(name: string): Buffer {
  const body = ` path=${name}\n`;
  const bodyBytes = Buffer.byteLength(body);
  let length = bodyBytes + 1;
  while (String(length).length + bodyBytes !== length) length += 1;
  return Buffer.from(`${length}${body}`, 'utf8');
}

function padding(size: number): Buffer {
  const rest = size % BLOCK;
  return rest === 0 ? Buffer.alloc(0) : ZEROS.subarray(0, BLOCK - rest);
}

/** The header of one entry: ustar, preceded by a pax header when the name is not ASCII or longer than 100 bytes. */
export function entryHeader(name: string, type: 'file' | 'directory', size: number, mtime: Date): Buffer {
  const mode = type === 'file' ? DEFAULT_FILE_MODE : DEFAULT_FOLDER_MODE;
  const seconds = Math.floor(mtime.getTime() / 1000);
  const full = type === 'directory' ? `${name}/` : name;
  const flag = type === 'file' ? '0' : '5';
  // Printable ASCII only goes into the ustar name as it is.
  if (Buffer.byteLength(full) <= 100 && /^[\x20-\x7e]+$/.test(full)) return ustarBlock(full, flag, mode, size, seconds);
  const record = paxRecord(full);
  const short = `PaxHeaders/${full.replace(/[^\x20-\x7e]/g, '_').slice(-80)}`;
  return Buffer.concat([ustarBlock(short.slice(0, 100), 'x', 0o644, record.length, seconds), record, padding(record.length), ustarBlock(short.slice(0, 100), flag, mode, size, seconds)]);
}

/**
 * A tar stream of regular files (owned by 10001:10001, 0644) with the folders they need (0755), written as it is
 * read: each file's bytes are loaded when its turn comes (a few ahead), never the whole archive in memory. Names are
 * validated with normalizeRelativePath; duplicates and file/folder clashes are refused (INVALID_INPUT) and the size
 * caps checked (LIMIT_EXCEEDED) before anything is written, from the declared sizes; a file whose bytes are not its
 * declared size ends the stream with an error.
 */
export function streamTar(files: readonly StreamFile[], options: StreamTarOptions): Readable {
  const mtime = options.mtime ?? new Date();
  const names = new PathSet();
  const folders = new Set<string>();
  const plan: Array<{ folder: string } | { file: StreamFile; path: string }> = [];
  let total = 0;
  for (const file of files) {
    const path = normalizeRelativePath(file.path);
    if (!Number.isInteger(file.size) || file.size < 0) throw new SandpitError('INVALID_INPUT', `File ${JSON.stringify(path)} has no valid size`);
    if (file.size > options.maxFileBytes) {
      throw new SandpitError('LIMIT_EXCEEDED', `File ${JSON.stringify(path)} is ${file.size} bytes, over the ${options.maxFileBytes} byte limit`, { path, size: file.size, maxFileBytes: options.maxFileBytes });
    }
    total += file.size;
    if (total > options.maxTotalBytes) throw new SandpitError('LIMIT_EXCEEDED', `The files add up to more than ${options.maxTotalBytes} bytes`, { maxTotalBytes: options.maxTotalBytes });
    names.addFile(path);
    for (const folder of parentsOf(path)) {
      if (folders.has(folder)) continue;
      folders.add(folder);
      plan.push({ folder });
    }
    plan.push({ file, path });
  }
  const readAhead = Math.max(1, options.readAhead ?? 4);
  const fileSteps = plan.flatMap((step) => ('file' in step ? [step] : []));
  async function* chunks(): AsyncGenerator<Buffer> {
    const loading = new Map<number, Promise<Buffer>>();
    let nextToLoad = 0;
    const loadAhead = (): void => {
      while (nextToLoad < fileSteps.length && loading.size < readAhead) {
        const index = nextToLoad++;
        const promise = fileSteps[index]!.file.load();
        promise.catch(() => undefined);
        loading.set(index, promise);
      }
    };
    let fileIndex = 0;
    for (const step of plan) {
      if ('folder' in step) {
        yield entryHeader(step.folder, 'directory', 0, mtime);
        continue;
      }
      loadAhead();
      const content = await loading.get(fileIndex)!;
      loading.delete(fileIndex);
      fileIndex += 1;
      loadAhead();
      if (content.length !== step.file.size) throw new SandpitError('INTERNAL', `File ${JSON.stringify(step.path)} is ${content.length} bytes, not the ${step.file.size} it was said to be`);
      yield entryHeader(step.path, 'file', content.length, mtime);
      if (content.length > 0) yield content;
      if (content.length % BLOCK !== 0) yield padding(content.length);
    }
    yield ZEROS;
  }
  return Readable.from(chunks(), { objectMode: false, highWaterMark: 1 << 20 });
}
