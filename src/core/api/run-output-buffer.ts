import type { RunOutputChunk } from '../../shared/domain/background-run';

/** The most output one background run keeps in memory; older output is dropped first (its result keeps its own copy). */
export const MAX_KEPT_OUTPUT_CHARS = 2 * 1024 * 1024;

export interface OutputSlice {
  output: RunOutputChunk[];
  cursor: number;
  skippedChars: number;
  more: boolean;
}

interface StoredChunk extends RunOutputChunk {
  /** Characters printed before this chunk (its absolute offset). */
  start: number;
}

/**
 * A run's output as it streams, addressed by a cursor: the number of characters printed so far. A caller reads
 * from where it stopped; only the newest MAX_KEPT_OUTPUT_CHARS are kept, and what was dropped is counted.
 */
export class RunOutputBuffer {
  private readonly chunks: StoredChunk[] = [];
  private total = 0;
  private kept = 0;

  constructor(private readonly maxKept = MAX_KEPT_OUTPUT_CHARS) {}

  /** Characters printed so far (the cursor after everything). */
  get length(): number {
    return this.total;
  }

  append(stream: RunOutputChunk['stream'], text: string): void {
    if (text === '') return;
    this.chunks.push({ stream, text, start: this.total });
    this.total += text.length;
    this.kept += text.length;
    while (this.kept > this.maxKept && this.chunks.length > 1) this.kept -= this.chunks.shift()!.text.length;
  }

  /** Output from `since`, at most `maxChars` characters, in the order it was printed. */
  slice(since: number, maxChars: number): OutputSlice {
    const from = Math.min(since, this.total);
    const firstKept = this.chunks[0]?.start ?? this.total;
    let cursor = Math.max(from, firstKept);
    const skippedChars = cursor - from;
    const output: RunOutputChunk[] = [];
    let budget = maxChars;
    for (const chunk of this.chunks) {
      if (budget <= 0) break;
      const end = chunk.start + chunk.text.length;
      if (end <= cursor) continue;
      const text = chunk.text.slice(cursor - chunk.start, cursor - chunk.start + budget);
      const last = output[output.length - 1];
      if (last && last.stream === chunk.stream) last.text += text;
      else output.push({ stream: chunk.stream, text });
      cursor += text.length;
      budget -= text.length;
    }
    return { output, cursor, skippedChars, more: cursor < this.total };
  }
}
