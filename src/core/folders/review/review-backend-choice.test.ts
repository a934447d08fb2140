// Which backend a review folder gets, and why (no engine: the engine's own answer is a stand-in here; the real
// engine's is attacked in review-overlay.docker.test.ts): an overlay only where every condition holds, else a
// copy that says why in plain words — or, when Settings ask for overlays only, a refusal saying why.
import { lstat, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ReviewLayers } from './review-layers';
import type { OverlaySupport, ReviewLayersOptions } from './review-layers';

const engineSaysYes: OverlaySupport = { refusal: () => Promise.resolve(undefined) };

describe('the backend of a review folder', () => {
  let root: string | undefined;
  afterEach(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  const folder = async (name = 'person'): Promise<string> => {
    root ??= await mkdtemp(join(tmpdir(), 'sandpit-review-choice-'));
    const person = join(root, name);
    await mkdir(join(person, 'sub'), { recursive: true });
    await writeFile(join(person, 'a.txt'), 'a\n');
    await writeFile(join(person, 'sub', 'b.txt'), 'b\n');
    return person;
  };
  const layers = (options: Partial<ReviewLayersOptions>): ReviewLayers =>
    new ReviewLayers({
      dataFolder: join(root!, 'data'),
      trash: undefined,
      asRoot: true,
      overlay: engineSaysYes,
      ...options,
    });

  it('makes an overlay layer where every condition holds: an empty upper folder, a record of stats (no file read)', async () => {
    const person = await folder();
    const made = await layers({}).create(person);
    expect(made.backend).toBe('overlay');
    expect(made.layerPath).toMatch(/\/review-layers\/rv-[A-Za-z0-9_-]+\/upper$/);
    expect(made.overlayWorkPath).toBe(join(made.layerPath, '..', 'work'));
    expect(await readdir(made.layerPath)).toEqual([]);
    expect((await lstat(made.layerPath)).mode & 0o7777).toBe((await lstat(person)).mode & 0o7777);
    const record = JSON.parse(await readFile(join(made.layerPath, '..', 'base.json'), 'utf8')) as {
      backend: string;
      files: Record<string, { size: number; sha256?: string }>;
    };
    expect(record.backend).toBe('overlay');
    expect(
      Object.entries(record.files)
        .map(([rel, f]) => [rel, f.size, f.sha256 ?? null])
        .sort(),
    ).toEqual([
      ['a.txt', 2, null],
      ['sub/b.txt', 2, null],
    ]);
  });

  it('makes a copy, saying why, wherever an overlay would not do', async () => {
    const person = await folder();
    const cases: Array<[Partial<ReviewLayersOptions>, string | undefined, string]> = [
      [{ setting: 'copy' }, undefined, 'SANDPIT_REVIEW_LAYERS asks for copies'],
      [{ overlay: undefined }, undefined, 'this engine cannot mount an overlay over a folder of this computer'],
      [
        { asRoot: false },
        undefined,
        "Sandpit does not run as root, so it could not read the overlay's marks of deleted folders",
      ],
      [{ owner: { uid: 10001, gid: 10001 } }, 'the sandbox cannot write here', 'the sandbox cannot write here'],
      [
        { overlay: { refusal: () => Promise.resolve('the engine runs rootless') } },
        undefined,
        'the engine runs rootless',
      ],
    ];
    for (const [options, cannotWrite, reason] of cases) {
      const made = await layers(options).create(person, cannotWrite);
      expect([made.backend, made.reason], reason).toEqual(['copy', reason]);
      expect((await readdir(made.layerPath)).sort()).toEqual(['a.txt', 'sub']);
    }
  });

  it('never names a path with a comma or a colon in an overlay mount', async () => {
    const person = await folder('sales, 2026: north');
    const made = await layers({}).create(person);
    expect(made.backend).toBe('copy');
    expect(made.reason).toBe(
      `the path ${JSON.stringify(person)} holds a comma, a colon, a backslash or a control character, which an overlay mount cannot name`,
    );
  });

  it("refuses a copy the sandbox could not change: without root it keeps the folder's owners", async () => {
    const person = await folder();
    await expect(
      layers({ asRoot: false, owner: undefined }).create(person, 'user 10001 may not write'),
    ).rejects.toThrow(
      `The sandbox (user 10001) could not change ${person}: Sandpit does not run as root here, so it cannot give the sandbox a copy of its own, and the folder's own permissions do not let the sandbox write to it. Make it writable for its group (chmod -R g+w "${person}", with a group of your own, gid 1000 or above: Sandpit adds the folder's group to the sandbox user), or share it read-only.`,
    );
    expect(await readdir(join(root!, 'data', 'review-layers'))).toEqual([]);
  });

  it('refuses the share, saying why, when Settings ask for overlays only and one is not possible', async () => {
    const person = await folder();
    await expect(layers({ setting: 'overlay', asRoot: false }).create(person)).rejects.toThrow(
      "The folder cannot be kept as an overlay, as SANDPIT_REVIEW_LAYERS asks: Sandpit does not run as root, so it could not read the overlay's marks of deleted folders.",
    );
    expect(await readdir(join(root!, 'data', 'review-layers'))).toEqual([]);
  });
});
