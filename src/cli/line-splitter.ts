/** A complete line, or one that was longer than the limit: only its size and its two ends were kept. */
export type SplitLine =
  | { kind: 'line'; text: string }
  | {
      kind: 'oversized';
      /** The line's length in bytes (without its newline). */
      bytes: number;
      /** Its first and last bytes (up to `keepBytes` each), decoded: enough to find a request id. */
      head: string;
      tail: string;
    };

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Splits a byte stream into newline-terminated lines without ever holding more than `maxLineBytes` of one
 * line: a longer line is dropped as it arrives (only its length, head and tail are kept) until its newline.
 * Lines are decoded as UTF-8 once whole, so a character split across chunks stays intact. A trailing `\r`
 * is removed; blank lines are skipped.
 */
export class LineSplitter {
  private chunks: Buffer[] = [];
  private held = 0;
  private oversized: { bytes: number; head: Buffer; tail: Buffer } | undefined;

  constructor(
    private readonly maxLineBytes: number,
    private readonly keepBytes = 4_096,
  ) {}

  /** The lines this chunk completes, in order. */
  push(chunk: Buffer): SplitLine[] {
    const lines: SplitLine[] = [];
    let start = 0;
    while (start <= chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      if (end > start) this.add(chunk.subarray(start, end));
      if (newline === -1) break;
      const line = this.finish();
      if (line) lines.push(line);
      start = newline + 1;
    }
    return lines;
  }

  /** Bytes of the current, unfinished line held in memory now (at most `maxLineBytes`, or 2 × `keepBytes`). */
  get heldBytes(): number {
    return this.oversized ? this.oversized.head.length + this.oversized.tail.length : this.held;
  }

  /** Drops the unfinished line (the input ended without its newline). */
  reset(): void {
    this.chunks = [];
    this.held = 0;
    this.oversized = undefined;
  }

  private add(piece: Buffer): void {
    if (this.oversized) {
      this.oversized.bytes += piece.length;
      this.oversized.tail = lastBytes([this.oversized.tail, piece], this.keepBytes);
      return;
    }
    if (this.held + piece.length <= this.maxLineBytes) {
      // A copy: a slice would keep the whole chunk it came from alive.
      this.chunks.push(Buffer.from(piece));
      this.held += piece.length;
      return;
    }
    const parts = [...this.chunks, piece];
    this.oversized = {
      bytes: this.held + piece.length,
      head: firstBytes(parts, this.keepBytes),
      tail: lastBytes(parts, this.keepBytes),
    };
    this.chunks = [];
    this.held = 0;
  }

  private finish(): SplitLine | undefined {
    const { oversized } = this;
    if (oversized) {
      this.reset();
      return {
        kind: 'oversized',
        bytes: oversized.bytes,
        head: oversized.head.toString('utf8'),
        tail: oversized.tail.toString('utf8'),
      };
    }
    let line = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.held);
    this.reset();
    if (line.length > 0 && line[line.length - 1] === CARRIAGE_RETURN) line = line.subarray(0, line.length - 1);
    const text = line.toString('utf8');
    return text.trim() === '' ? undefined : { kind: 'line', text };
  }
}

/** A copy of the first `count` bytes of the parts joined. */
function firstBytes(parts: readonly Buffer[], count: number): Buffer {
  const out: Buffer[] = [];
  let left = count;
  for (const part of parts) {
    if (left <= 0) break;
    out.push(part.subarray(0, left));
    left -= Math.min(left, part.length);
  }
  return Buffer.concat(out);
}

/** A copy of the last `count` bytes of the parts joined. */
function lastBytes(parts: readonly Buffer[], count: number): Buffer {
  const out: Buffer[] = [];
  let left = count;
  for (let i = parts.length - 1; i >= 0 && left > 0; i -= 1) {
    const part = parts[i] as Buffer;
    out.unshift(part.subarray(Math.max(0, part.length - left)));
    left -= Math.min(left, part.length);
  }
  return Buffer.concat(out);
}
