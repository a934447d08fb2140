import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { denseBytes, writeSparseFileAtomic } from './atomic-write';

const KIB = 1024;
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'atomic-write-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function zeros(n: number): Buffer {
  return Buffer.alloc(n);
}

describe('writeSparseFileAtomic', () => {
  it.each<[string, () => Buffer]>([
    ['empty', () => Buffer.alloc(0)],
    ['a few bytes', () => Buffer.from('hello')],
    ['only zeros', () => zeros(3 * 64 * KIB + 5)],
    ['data, a hole, data ending in a partial block', () => Buffer.concat([randomBytes(70 * KIB), zeros(256 * KIB), randomBytes(10 * KIB + 3)])],
    ['a hole first, then data', () => Buffer.concat([zeros(128 * KIB), randomBytes(64 * KIB)])],
    ['data with a zero tail', () => Buffer.concat([randomBytes(64 * KIB), zeros(200 * KIB)])],
  ])('writes %s back byte for byte, holes left as holes, leaving no temp file', async (_what, make) => {
    const content = make();
    const path = join(dir, 'blob');
    const allocated = await writeSparseFileAtomic(path, content);
    expect((await readFile(path)).equals(content)).toBe(true);
    expect((await stat(path)).size).toBe(content.length);
    expect(allocated).toBe((await stat(path)).blocks * 512);
    // never more than the dense blocks rounded up to the file system's 4 KiB blocks (a few more for metadata)
    expect(allocated).toBeLessThanOrEqual(denseBytes(content) + 64 * KIB);
    expect(await readdir(dir)).toEqual(['blob']);
  });

  it('counts as dense only the 64 KiB blocks that are not all zeros', () => {
    expect(denseBytes(Buffer.alloc(0))).toBe(0);
    expect(denseBytes(zeros(10 * 64 * KIB))).toBe(0);
    const one = zeros(4 * 64 * KIB);
    one[2 * 64 * KIB + 7] = 1;
    expect(denseBytes(one)).toBe(64 * KIB);
    expect(denseBytes(Buffer.from('abc'))).toBe(3);
  });
});
