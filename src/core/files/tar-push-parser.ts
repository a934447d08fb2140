import { SandpitError } from '../../shared/api/errors';

/** An entry's type as tar-walk.ts names them (null: a type this parser does not know). */
export type PushedTarType = 'file' | 'link' | 'symlink' | 'character-device' | 'block-device' | 'directory' | 'fifo' | null;

export interface PushedTarHeader {
  /** Its name (a GNU long name or a pax `path` applied), as UTF-8. */
  name: string;
  type: PushedTarType;
  /** Its body's size in bytes. */
  size: number;
}

export interface TarPushHandlers {
  /**
   * An entry's header: returns the buffer its body is copied into (at least `size` bytes), or undefined to skip
   * the body. Throwing stops the parse (the error comes out of `push`).
   */
  entry(header: PushedTarHeader): Buffer | undefined;
  /** The body of an entry `entry` gave a buffer for, complete: `content` is that buffer's first `size` bytes. */
  body(header: PushedTarHeader, content: Buffer): void;
}

export interface TarPushOptions {
  /** Raw archive bytes accepted before the parse fails with LIMIT_EXCEEDED. */
  maxArchiveBytes: number;
}

const BLOCK = 512;
/** A GNU long name or a pax header's records: more than this is refused (a path is at most 4 KiB). */
const MAX_META_BYTES = 1024 * 1024;

const TYPES: Record<string, PushedTarType> = {
  '0': 'file',
  '\0': 'file',
  '7': 'file',
  '1': 'link',
  '2': 'symlink',
  '3': 'character-device',
  '4': 'block-device',
  '5': 'directory',
  '6': 'fifo',
};

function malformed(message: string): SandpitError {
  return new SandpitError('INVALID_INPUT', `The tar archive is malformed: ${message}`);
}

/** A numeric field: octal digits (spaces and NULs around them), or GNU's base-256 (its first byte's high bit set). */
function numberField(block: Buffer, start: number, length: number, what: string): number {
  if ((block[start]! & 0x80) !== 0) {
    if (block[start] !== 0x80) throw malformed(`a negative or too large ${what}`);
    let value = 0;
    for (let i = start + 1; i < start + length; i++) value = value * 256 + block[i]!;
    if (!Number.isSafeInteger(value)) throw malformed(`a too large ${what}`);
    return value;
  }
  const text = block.toString('latin1', start, start + length).replace(/\0.*$/s, '').trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) throw malformed(`an entry's ${what} is not a number`);
  return parseInt(text, 8);
}

/** A NUL-terminated text field, as UTF-8. */
function textField(block: Buffer, start: number, length: number): string {
  const end = block.indexOf(0, start);
  return block.toString('utf8', start, end < 0 || end > start + length ? start + length : end);
}

function isZeros(block: Buffer): boolean {
  for (let i = 0; i < BLOCK; i++) if (block[i] !== 0) return false;
  return true;
}

/** The records of a pax extended header (`<length> <key>=<value>\n` each) that rename or resize the next entry. */
function paxRecords(body: Buffer): { path?: string; size?: number } {
  const found: { path?: string; size?: number } = {};
  let at = 0;
  while (at < body.length) {
    const space = body.indexOf(0x20, at);
    if (space < 0) break;
    const length = Number(body.toString('latin1', at, space));
    if (!Number.isSafeInteger(length) || length <= space - at || at + length > body.length) throw malformed('a pax record has a wrong length');
    const record = body.toString('utf8', space + 1, at + length - 1);
    const eq = record.indexOf('=');
    if (eq > 0) {
      const key = record.slice(0, eq);
      const value = record.slice(eq + 1);
      if (key === 'path') found.path = value;
      else if (key === 'size') {
        if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw malformed('a pax size is not a number');
        found.size = Number(value);
      }
    }
    at += length;
  }
  return found;
}

type Phase = 'header' | 'body' | 'padding';

/**
 * A tar archive parsed as its bytes are pushed, each push's bytes used at once and never kept (the caller may
 * read into one buffer again and again): ustar and GNU headers (checksums checked), GNU long names and pax
 * `path`/`size` records applied to the next entry, bodies copied straight into the buffer the handler gives or
 * skipped. Zero blocks (the end of the archive, the record's padding) are passed over.
 */
export class TarPushParser {
  private readonly header = Buffer.alloc(BLOCK);
  private headerFill = 0;
  private phase: Phase = 'header';
  /** Bytes of the current body (or meta entry) still to come, then its padding. */
  private left = 0;
  private padding = 0;
  private current: PushedTarHeader | undefined;
  private target: Buffer | undefined;
  private filled = 0;
  private meta: { kind: 'long-name' | 'pax' | 'ignored'; bytes: Buffer } | undefined;
  private longName: string | undefined;
  private pax: { path?: string; size?: number } = {};
  private received = 0;
  private failed: Error | undefined;

  constructor(
    private readonly handlers: TarPushHandlers,
    private readonly options: TarPushOptions,
  ) {}

  /** Parses `bytes` (used only during this call). Throws what stopped the parse; after that, every call throws it again. */
  push(bytes: Buffer): void {
    if (this.failed !== undefined) throw this.failed;
    try {
      this.received += bytes.length;
      if (this.received > this.options.maxArchiveBytes) {
        throw new SandpitError('LIMIT_EXCEEDED', `The tar archive is larger than ${this.options.maxArchiveBytes} bytes`, { maxArchiveBytes: this.options.maxArchiveBytes });
      }
      let at = 0;
      while (at < bytes.length) at = this.step(bytes, at);
    } catch (error) {
      this.failed = error instanceof Error ? error : new SandpitError('INTERNAL', String(error));
      throw this.failed;
    }
  }

  /** The archive's end: throws if it stopped inside an entry. */
  end(): void {
    if (this.failed !== undefined) throw this.failed;
    if (this.phase !== 'header' || this.headerFill !== 0) {
      this.failed = new SandpitError('INVALID_INPUT', 'The tar stream closed before its end');
      throw this.failed;
    }
  }

  /** Takes what it can of `bytes` from `at` in the current phase; returns where the next phase starts. */
  private step(bytes: Buffer, at: number): number {
    const available = bytes.length - at;
    switch (this.phase) {
      case 'header': {
        const n = Math.min(BLOCK - this.headerFill, available);
        bytes.copy(this.header, this.headerFill, at, at + n);
        this.headerFill += n;
        if (this.headerFill === BLOCK) {
          this.headerFill = 0;
          this.onHeader();
        }
        return at + n;
      }
      case 'body': {
        // an entry's body goes into the handler's buffer (or nowhere); a long name's or pax header's into its own
        const n = Math.min(this.left, available);
        const into = this.meta ? this.meta.bytes : this.target;
        if (into) bytes.copy(into, this.filled, at, at + n);
        this.filled += n;
        this.left -= n;
        if (this.left === 0) {
          if (this.meta) this.endMeta();
          else this.endBody();
        }
        return at + n;
      }
      case 'padding': {
        const n = Math.min(this.padding, available);
        this.padding -= n;
        if (this.padding === 0) this.phase = 'header';
        return at + n;
      }
    }
  }

  private onHeader(): void {
    const block = this.header;
    if (isZeros(block)) return;
    const expected = numberField(block, 148, 8, 'checksum');
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i]!;
    if (sum !== expected) throw malformed('a header\'s checksum is wrong (is it a tar archive?)');
    const flag = String.fromCharCode(block[156]!);
    let size = numberField(block, 124, 12, 'size');
    if (flag === 'L' || flag === 'x' || flag === 'g' || flag === 'K') {
      if (size > MAX_META_BYTES) throw malformed(`a long name or pax header of ${size} bytes`);
      this.meta = { kind: flag === 'L' ? 'long-name' : flag === 'x' ? 'pax' : 'ignored', bytes: Buffer.alloc(size) };
      this.startBody(size);
      if (size === 0) this.endMeta();
      return;
    }
    // ustar (POSIX) headers split a long name into a prefix; GNU's ("ustar  ") keep other fields there.
    const posix = block.toString('latin1', 257, 263) === 'ustar\0';
    const prefix = posix ? textField(block, 345, 155) : '';
    const name = this.longName ?? this.pax.path ?? (prefix ? `${prefix}/${textField(block, 0, 100)}` : textField(block, 0, 100));
    if (this.pax.size !== undefined) size = this.pax.size;
    this.longName = undefined;
    this.pax = {};
    const type = TYPES[flag] ?? null;
    const header: PushedTarHeader = { name, type, size };
    this.current = header;
    this.target = this.handlers.entry(header);
    if (this.target && this.target.length < size) throw new SandpitError('INTERNAL', `A buffer of ${this.target.length} bytes was given for ${size}.`);
    this.startBody(size);
    if (size === 0) this.endBody();
  }

  private startBody(size: number): void {
    this.phase = 'body';
    this.left = size;
    this.filled = 0;
    this.padding = (BLOCK - (size % BLOCK)) % BLOCK;
  }

  private afterBody(): void {
    this.phase = this.padding > 0 ? 'padding' : 'header';
  }

  private endBody(): void {
    const header = this.current!;
    const target = this.target;
    this.current = undefined;
    this.target = undefined;
    this.afterBody();
    if (target) this.handlers.body(header, target.subarray(0, header.size));
  }

  private endMeta(): void {
    const meta = this.meta!;
    this.meta = undefined;
    this.afterBody();
    if (meta.kind === 'long-name') this.longName = textField(meta.bytes, 0, meta.bytes.length);
    else if (meta.kind === 'pax') this.pax = paxRecords(meta.bytes);
  }
}
