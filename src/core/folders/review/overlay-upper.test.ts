// Reading an overlay's upper folder from the host, on folders made by hand the way overlayfs leaves them
// (whiteouts are 0/0 character devices: making one needs root, as overlayfs itself does); and a path of the
// layer swapped for a link while Sandpit reads it never gives another file's content.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstat, mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OpaqueMarks, readUpper } from './overlay-upper';
import { hashFile, readVerified } from './review-files';

const ROOT = process.getuid?.() === 0;

describe('the upper folder of an overlay, read from the host', () => {
  let root: string | undefined;
  afterEach(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it.skipIf(!ROOT)(
    "(needs root to make whiteouts) tells the session's files from the person's files it deleted or replaced",
    async () => {
      root = await mkdtemp(join(tmpdir(), 'sandpit-upper-'));
      const upper = join(root, 'upper');
      const whiteout = (rel: string): void => {
        const made = spawnSync('mknod', [join(upper, rel), 'c', '0', '0']);
        if (made.status !== 0) throw new Error(`mknod failed: ${made.stderr.toString()}`);
      };
      await mkdir(join(upper, 'd'), { recursive: true });
      await mkdir(join(upper, 'g'));
      whiteout('a.txt');
      whiteout('d/x.txt');
      whiteout('not-theirs.txt');
      await writeFile(join(upper, 'f'), 'a file where a folder was\n');
      await writeFile(join(upper, 'g', 'new.txt'), 'in a folder where a file was\n');
      await writeFile(join(upper, 'new.txt'), 'new\n');
      const base = ['a.txt', 'd/x.txt', 'd/y.txt', 'f/inner.txt', 'g', 'kept.txt'];
      const read = await readUpper(upper, base, new OpaqueMarks());
      expect(read.entries.map((e) => e.rel).sort()).toEqual(['f', 'g/new.txt', 'new.txt']);
      expect([...read.deleted].sort()).toEqual(['a.txt', 'd/x.txt', 'f/inner.txt', 'g']);
    },
  );

  it('never reads another file through a folder of the layer swapped for a link', async () => {
    root = await mkdtemp(join(tmpdir(), 'sandpit-upper-swap-'));
    const layer = join(root, 'layer');
    const outside = join(root, 'outside');
    await mkdir(join(layer, 'leak'), { recursive: true });
    await mkdir(outside);
    await writeFile(join(layer, 'leak', 'secret.txt'), 'decoy\n');
    await writeFile(join(outside, 'secret.txt'), 'the host secret\n');
    const listed = await lstat(join(layer, 'leak', 'secret.txt'));
    const sha = createHash('sha256').update('decoy\n').digest('hex');
    // the sandbox swaps the folder for a link between the listing and the read
    await rename(join(layer, 'leak'), join(layer, 'leak-old'));
    await symlink(outside, join(layer, 'leak'));
    await expect(hashFile(join(layer, 'leak', 'secret.txt'), listed)).rejects.toThrow(
      `${join(layer, 'leak', 'secret.txt')} changed while it was read: list the changes again.`,
    );
    expect(await readVerified(join(layer, 'leak', 'secret.txt'), sha, 1024)).toBeUndefined();
    // the real one still reads
    expect((await readVerified(join(layer, 'leak-old', 'secret.txt'), sha, 1024))?.toString()).toBe('decoy\n');
  });
});
