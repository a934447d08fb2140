import type { ChunkReader } from '../core/sandbox/chunk-reader';

export interface PausingReader extends ChunkReader {
  /** Everything taken, in order. */
  bytes(): Buffer;
  takes: number;
  pauses: number;
  /** The memory each read was in (one entry when every read lands in the same buffer). */
  views: Set<ArrayBufferLike>;
}

/** A reader that copies what it takes, asks for no more after every `every`-th read and asks again `afterMs` later. */
export function pausingReader(every = 3, afterMs = 2): PausingReader {
  const chunks: Buffer[] = [];
  let resume: (() => void) | undefined;
  const reader: PausingReader = {
    takes: 0,
    pauses: 0,
    views: new Set<ArrayBufferLike>(),
    take(bytes: Buffer): boolean {
      reader.takes += 1;
      reader.views.add(bytes.buffer);
      chunks.push(Buffer.from(bytes));
      if (reader.takes % every !== 0) return true;
      reader.pauses += 1;
      setTimeout(() => resume?.(), afterMs);
      return false;
    },
    started(again: () => void): void {
      resume = again;
    },
    bytes: (): Buffer => Buffer.concat(chunks),
  };
  return reader;
}
