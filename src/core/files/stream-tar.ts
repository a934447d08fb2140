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

type Step = { folder: string } | { file: StreamFile; path: string };

/** The checks of a tar stream's files, one file at a time: its name, the folders it needs first, and the caps. */
class TarPlan {
  private readonly names = new PathSet();
  private readonly folders = new Set<string>();
  private total = 0;

  constructor(private readonly options: StreamTarOptions) {}

  /** The folders `file` needs that are not in the stream yet, then the file itself; throws when it is refused. */
  add(file: StreamFile): Step[] {
    const path = normalizeRelativePath(file.path);
    if (!Number.isInteger(file.size) || file.size < 0) throw new SandpitError('INVALID_INPUT', `File ${JSON.stringify(path)} has no valid size`);
    if (file.size > this.options.maxFileBytes) {
      throw new SandpitError('LIMIT_EXCEEDED', `File ${JSON.stringify(path)} is ${file.size} bytes, over the ${this.options.maxFileBytes} byte limit`, { path, size: file.size, maxFileBytes: this.options.maxFileBytes });
    }
    this.total += file.size;
    if (this.total > this.options.maxTotalBytes) throw new SandpitError('LIMIT_EXCEEDED', `The files add up to more than ${this.options.maxTotalBytes} bytes`, { maxTotalBytes: this.options.maxTotalBytes });
    this.names.addFile(path);
    const steps: Step[] = [];
    for (const folder of parentsOf(path)) {
      if (this.folders.has(folder)) continue;
      this.folders.add(folder);
      steps.push({ folder });
    }
    steps.push({ file, path });
    return steps;
  }
}

async function* checkedAsTheyCome(files: AsyncIterable<StreamFile>, plan: TarPlan): AsyncGenerator<Step[]> {
  for await (const file of files) yield plan.add(file);
}

/** The archive's chunks: at most `readAhead` files loaded or loading at once, the one being written among them. */
async function* chunks(groups: Iterable<Step[]> | AsyncIterable<Step[]>, mtime: Date, readAhead: number): AsyncGenerator<Buffer> {
  const waiting: Array<{ steps: Step[]; content: Promise<Buffer> | undefined }> = [];
  async function* write(entry: { steps: Step[]; content: Promise<Buffer> | undefined }): AsyncGenerator<Buffer> {
    for (const step of entry.steps) {
      if ('folder' in step) {
        yield entryHeader(step.folder, 'directory', 0, mtime);
        continue;
      }
      const content = await entry.content!;
      if (content.length !== step.file.size) throw new SandpitError('INTERNAL', `File ${JSON.stringify(step.path)} is ${content.length} bytes, not the ${step.file.size} it was said to be`);
      yield entryHeader(step.path, 'file', content.length, mtime);
      if (content.length > 0) yield content;
      if (content.length % BLOCK !== 0) yield padding(content.length);
    }
  }
  for await (const steps of groups) {
    const last = steps[steps.length - 1];
    const content = last && 'file' in last ? last.file.load() : undefined;
    content?.catch(() => undefined);
    waiting.push({ steps, content });
    if (waiting.length >= readAhead) yield* write(waiting.shift()!);
  }
  while (waiting.length > 0) yield* write(waiting.shift()!);
  yield ZEROS;
}

/**
 * A tar stream of regular files (owned by 10001:10001, 0644) with the folders they need (0755), written as it is
 * read: each file's bytes are loaded when its turn comes (a few ahead), never the whole archive in memory. Names are
 * validated with normalizeRelativePath; duplicates and file/folder clashes are refused (INVALID_INPUT) and the size
 * caps checked (LIMIT_EXCEEDED) from the declared sizes: for an array, before anything is written (thrown here); for
 * files that come one by one (a fork writes a snapshot's files as it takes them), as each comes (the stream ends with
 * the error). A file whose bytes are not its declared size ends the stream with an error.
 */
export function streamTar(files: readonly StreamFile[] | AsyncIterable<StreamFile>, options: StreamTarOptions): Readable {
  const plan = new TarPlan(options);
  const groups = isList(files) ? files.map((file) => plan.add(file)) : checkedAsTheyCome(files, plan);
  return Readable.from(chunks(groups, options.mtime ?? new Date(), Math.max(1, options.readAhead ?? 4)), { objectMode: false, highWaterMark: 1 << 20 });
}

function isList(files: readonly StreamFile[] | AsyncIterable<StreamFile>): files is readonly StreamFile[] {
  return Array.isArray(files);
}
