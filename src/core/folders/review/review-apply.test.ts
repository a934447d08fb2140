// Apply and discard on real folders (no engine needed: the layer is a folder of this computer): a deletion
// where there is no trash waits for a confirmation; a link the sandbox plants in place of a folder of its layer
// never takes a discard (or an apply) outside the folder.
import { lstat, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ReviewLayers } from './review-layers';

describe('review apply and discard', () => {
  let root: string | undefined;
  afterEach(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  const setup = async (): Promise<{ person: string; outside: string; layers: ReviewLayers; layer: string }> => {
    root = await mkdtemp(join(tmpdir(), 'sandpit-review-apply-'));
    const person = join(root, 'person');
    const outside = join(root, 'outside');
    await mkdir(join(person, 'sub'), { recursive: true });
    await mkdir(outside);
    await writeFile(join(person, 'gone.txt'), 'bye\n');
    await writeFile(join(person, 'sub', 'inner.txt'), 'inner\n');
    const layers = new ReviewLayers({ dataFolder: join(root, 'data'), trash: undefined });
    return { person, outside, layers, layer: (await layers.create(person)).layerPath };
  };

  it('deletes a file for good only after the confirmation, where there is no trash', async () => {
    const { person, layers, layer } = await setup();
    await rm(join(layer, 'gone.txt'));
    const first = await layers.apply(layer, person, { paths: ['gone.txt'] });
    expect(first.map((o) => [o.path, o.done, o.message])).toEqual([
      ['gone.txt', false, 'This computer has no trash Sandpit can use: confirm that the file is deleted for good.'],
    ]);
    expect(await readFile(join(person, 'gone.txt'), 'utf8')).toBe('bye\n');
    const second = await layers.apply(layer, person, { paths: ['gone.txt'] }, { confirmDelete: true });
    expect(second.map((o) => [o.done, o.message])).toEqual([[true, 'Deleted for good (you confirmed it).']]);
    await expect(lstat(join(person, 'gone.txt'))).rejects.toThrow(/ENOENT/);
  });

  it('asks for the confirmation when the trash cannot take a file, and keeps it till then', async () => {
    const { person, layer } = await setup();
    const full = new ReviewLayers({
      dataFolder: join(root!, 'data'),
      trash: { put: () => Promise.reject(new Error("no space left on the trash's disk")) },
    });
    await rm(join(layer, 'gone.txt'));
    const first = await full.apply(layer, person, { paths: ['gone.txt'] });
    expect(first).toEqual([
      {
        path: 'gone.txt',
        done: false,
        message:
          "Your computer's trash could not take it (no space left on the trash's disk): confirm that the file is deleted for good.",
        needsConfirmation: true,
        beforeSha256: expect.stringMatching(/^[0-9a-f]{64}$/) as string,
      },
    ]);
    expect(await readFile(join(person, 'gone.txt'), 'utf8')).toBe('bye\n');
    const second = await full.apply(layer, person, { paths: ['gone.txt'] }, { confirmDelete: true });
    expect(second.map((o) => [o.done, o.message])).toEqual([[true, 'Deleted for good (you confirmed it).']]);
    await expect(lstat(join(person, 'gone.txt'))).rejects.toThrow(/ENOENT/);
  });

  it('never follows a link planted in place of a folder of the layer', async () => {
    const { person, outside, layers, layer } = await setup();
    await rm(join(layer, 'sub'), { recursive: true });
    await symlink(outside, join(layer, 'sub'));
    const listed = await layers.changes(layer, person);
    expect(listed.map((c) => [c.path, c.kind, c.refused?.reason ?? null])).toEqual([
      ['sub', 'added', 'link'],
      ['sub/inner.txt', 'deleted', null],
    ]);
    const discarded = await layers.discard(layer, person, { paths: ['sub/inner.txt'] });
    expect(discarded[0]!.done).toBe(false);
    expect(discarded[0]!.message).toMatch(
      /^Not discarded: sub\/inner.txt would be written through .*sub, which is a link: it would leave the folder\.$/,
    );
    expect(await readdir(outside)).toEqual([]);
    const applied = await layers.apply(layer, person, { all: true });
    expect(applied.find((o) => o.path === 'sub')).toMatchObject({
      done: false,
      message: 'Not applied: A link is never applied to your folder: it could point anywhere on your computer.',
    });
    expect(await readFile(join(person, 'sub', 'inner.txt'), 'utf8')).toBe('inner\n');
    expect((await lstat(join(person, 'sub'))).isDirectory()).toBe(true);
  });
});
