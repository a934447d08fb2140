import { describe, expect, it } from 'vitest';
import { ProcessRing, incompleteUtf8Tail } from './process-ring';

describe('a process output ring', () => {
  it('keeps the newest bytes, addressed by an absolute cursor, and says how many were dropped', () => {
    const ring = new ProcessRing(10);
    ring.push(Buffer.from('abcdef'));
    ring.push(Buffer.from('ghijkl'));
    expect([ring.start, ring.end]).toEqual([2, 12]);
    expect(ring.read(0, 100)).toEqual({ bytes: Buffer.from('cdefghijkl'), from: 2, dropped: 2 });
    expect(ring.read(8, 2)).toEqual({ bytes: Buffer.from('ij'), from: 8, dropped: 0 });
    expect(ring.read(12, 100).bytes.length).toBe(0);
    ring.push(Buffer.from('x'.repeat(25)));
    expect([ring.start, ring.end, ring.read(0, 100).bytes.toString()]).toEqual([27, 37, 'x'.repeat(10)]);
  });

  it('gives the last lines and wakes a reader waiting past its cursor', async () => {
    const ring = new ProcessRing(1024);
    ring.push(Buffer.from('one\ntwo\nthree\n'));
    expect(ring.lastLines(2)).toEqual(['two', 'three']);
    const waiting = ring.waitPast(ring.end, 5_000);
    ring.push(Buffer.from('four\n'));
    await waiting;
    expect(ring.lastLines(1)).toEqual(['four']);
  });

  it('holds back a character cut in two', () => {
    const euro = Buffer.from('€'); // 3 bytes
    expect(incompleteUtf8Tail(Buffer.concat([Buffer.from('a'), euro.subarray(0, 2)]))).toBe(2);
    expect(incompleteUtf8Tail(Buffer.concat([Buffer.from('a'), euro]))).toBe(0);
    expect(incompleteUtf8Tail(Buffer.from('abc'))).toBe(0);
  });
});
