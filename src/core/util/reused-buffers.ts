/** Buffers kept for reuse at most, and the largest kept. */
const MAX_KEPT = 8;
const MAX_KEPT_BYTES = 16 * 1024 * 1024;
/** The smallest buffer handed out for a non-empty size (small files share a size class). */
const MIN_BYTES = 64 * 1024;

/**
 * Large buffers used again instead of made anew: a fresh buffer of a MiB costs its page faults at first touch
 * (≈ 2 ms per MiB on the 2-core machine of bench/snapshots.ts, against 0.06 ms to copy a MiB into one already
 * touched), and a snapshot reads a workspace's files one after the other. A buffer given back must no longer be
 * used by whoever had it.
 */
export class ReusedBuffers {
  private readonly free: Buffer[] = [];

  /** A buffer of at least `size` bytes (its content is whatever it held). */
  take(size: number): Buffer {
    if (size === 0) return Buffer.alloc(0);
    let best = -1;
    for (let i = 0; i < this.free.length; i++) {
      const length = this.free[i]!.length;
      if (length >= size && (best < 0 || length < this.free[best]!.length)) best = i;
    }
    if (best >= 0) return this.free.splice(best, 1)[0]!;
    let capacity = MIN_BYTES;
    while (capacity < size) capacity *= 2;
    return Buffer.allocUnsafeSlow(capacity);
  }

  /** Takes back a buffer `take` gave (nothing else may still use it). */
  give(buffer: Buffer): void {
    if (buffer.length === 0 || buffer.length > MAX_KEPT_BYTES) return;
    this.free.push(buffer);
    if (this.free.length > MAX_KEPT) this.free.sort((a, b) => a.length - b.length).pop();
  }
}
