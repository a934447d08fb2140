import { describe, expect, it } from 'vitest';
import { ReusedBuffers } from './reused-buffers';

describe('ReusedBuffers', () => {
  it('gives back the smallest kept buffer that fits, and makes one (a size class of at least 64 KiB) when none does', () => {
    const buffers = new ReusedBuffers();
    const big = buffers.take(3 * 1024 * 1024);
    const small = buffers.take(100);
    expect(big.length).toBe(4 * 1024 * 1024);
    expect(small.length).toBe(64 * 1024);
    buffers.give(big);
    buffers.give(small);
    expect(buffers.take(1000)).toBe(small);
    expect(buffers.take(2 * 1024 * 1024)).toBe(big);
    // none kept fits now
    expect(buffers.take(10)).not.toBe(small);
    expect(buffers.take(0).length).toBe(0);
  });

  it('keeps at most 8, dropping the largest, and never one over 16 MiB', () => {
    const buffers = new ReusedBuffers();
    const made = Array.from({ length: 9 }, (_, i) => buffers.take((i + 1) * 64 * 1024));
    for (const b of made) buffers.give(b);
    const huge = buffers.take(20 * 1024 * 1024);
    buffers.give(huge);
    const back = Array.from({ length: 9 }, () => buffers.take(1));
    expect(back.slice(0, 8).every((b) => made.includes(b))).toBe(true);
    // identity checks as booleans: toContain on arrays of large buffers formats them all (seconds per MiB)
    expect(back.includes(made[8]!)).toBe(false);
    expect(back.includes(huge)).toBe(false);
  });
});
