/**
 * The output of one long-running process: the newest `capacity` bytes, addressed by an absolute cursor
 * (bytes written since the process started), so a reader that fell behind learns how much it missed.
 */
export class ProcessRing {
  private chunks: Buffer[] = [];
  private kept = 0;
  private total = 0;
  private readonly waiters = new Set<() => void>();

  constructor(private readonly capacity: number) {}

  /** Bytes written in all: the cursor just past the newest byte. */
  get end(): number {
    return this.total;
  }

  /** The cursor of the oldest byte still kept. */
  get start(): number {
    return this.total - this.kept;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    const part = chunk.length > this.capacity ? chunk.subarray(chunk.length - this.capacity) : chunk;
    this.chunks.push(Buffer.from(part));
    this.kept += part.length;
    this.total += chunk.length;
    while (this.kept > this.capacity) {
      const first = this.chunks[0]!;
      const over = this.kept - this.capacity;
      if (first.length <= over) {
        this.chunks.shift();
        this.kept -= first.length;
      } else {
        this.chunks[0] = first.subarray(over);
        this.kept -= over;
      }
    }
    for (const wake of [...this.waiters]) wake();
  }

  /** Up to `maxBytes` from `since` (or from the oldest kept byte, when `since` was dropped). */
  read(since: number, maxBytes: number): { bytes: Buffer; from: number; dropped: number } {
    const from = Math.max(since, this.start);
    const dropped = Math.max(0, this.start - since);
    if (from >= this.total) return { bytes: Buffer.alloc(0), from: this.total, dropped };
    const all = Buffer.concat(this.chunks);
    const offset = from - this.start;
    return { bytes: all.subarray(offset, Math.min(all.length, offset + maxBytes)), from, dropped };
  }

  /** The last `count` lines (a line longer than 500 characters is cut). */
  lastLines(count: number): string[] {
    const tail = this.read(Math.max(this.start, this.total - 8192), 8192).bytes.toString('utf8');
    const lines = tail.split('\n');
    if (lines.at(-1) === '') lines.pop();
    return lines.slice(-count).map((line) => (line.length > 500 ? `${line.slice(0, 500)}…` : line));
  }

  /** Resolves once bytes past `cursor` exist, `signal` is aborted, or `timeoutMs` passed. */
  waitPast(
    cursor: number,
    timeoutMs: number,
    signal?: { done: boolean; onDone(wake: () => void): void },
  ): Promise<void> {
    if (this.total > cursor || timeoutMs <= 0 || signal?.done) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, timeoutMs);
      this.waiters.add(wake);
      signal?.onDone(wake);
    });
  }
}

/** How many bytes at the end of `bytes` are an incomplete UTF-8 character (held back until the rest comes). */
export function incompleteUtf8Tail(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back += 1) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return need > back ? back : 0;
  }
  return 0;
}
