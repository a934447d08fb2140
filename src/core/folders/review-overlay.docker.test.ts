// The overlay backend of review folders on the real engine: which backend a folder gets (honestly: an overlay only
// where the sandbox may write the folder as it stands, else a copy, with why); a folder deleted and made again
// (an opaque folder, read back through tar) lists the person's files below it as deleted, and one of them
// discarded comes back alone; a kept session keeps its overlay across a restart of Sandpit; an upper folder
// swapped for a link while Sandpit is stopped is never mounted or read (the folder it points to stays untouched).
import { chmod, chown, lstat, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CallContext } from '../api/api-types';
import { call } from '../api/dispatcher';
import { createSandpit } from '../app';
import type { Sandpit } from '../app';
import { defaultConfig } from '../config';
import type { SandpitConfig } from '../config';
import { silentLogger } from '../log';

const PANEL: CallContext = { transport: 'ipc', client: 'panel' };

async function startCore(home: string, overrides: Partial<SandpitConfig> = {}): Promise<Sandpit> {
  const images = inject('images');
  if (!images.python) throw new Error('The python executor image was not built by the docker globalSetup.');
  return createSandpit(
    defaultConfig({ home, poolSize: 0, egressProxy: false, graceMs: 2_000, images: { ...images }, ...overrides }),
    { logger: silentLogger },
  );
}

/** A folder of the person's that the sandbox user may change as it stands (its owner is uid 10001). */
async function writableFolder(root: string, name: string, files: Record<string, string>): Promise<string> {
  const dir = join(root, name);
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(join(dir, rel, '..'), { recursive: true });
    await writeFile(join(dir, rel), content);
  }
  const own = async (path: string): Promise<void> => {
    await chown(path, 10001, 10001);
    if ((await lstat(path)).isDirectory()) for (const entry of await readdir(path)) await own(join(path, entry));
  };
  await own(dir);
  return dir;
}

describe('review folders as overlays (auto)', () => {
  let root: string;
  let sp: Sandpit;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'sandpit-review-overlay-'));
    await chmod(root, 0o755);
    sp = await startCore(join(root, 'home'));
  });
  afterAll(async () => {
    await sp?.dispose();
    await rm(root, { recursive: true, force: true });
  });

  it('gives an overlay to a folder the sandbox may write, and a copy (saying why) to one it may only read', async () => {
    const mine = await writableFolder(root, 'mine', { 'a.txt': 'a\n' });
    const readOnly = join(root, 'read-only');
    await mkdir(readOnly, { mode: 0o755 });
    await writeFile(join(readOnly, 'b.txt'), 'b\n');
    const session = await call(sp.api, 'sessions.create', {}, PANEL);
    await call(
      sp.api,
      'sessions.addFolder',
      { sessionId: session.id, folder: { hostPath: mine, mode: 'review' } },
      PANEL,
    );
    await call(
      sp.api,
      'sessions.addFolder',
      { sessionId: session.id, folder: { hostPath: readOnly, mode: 'review' } },
      PANEL,
    );
    const listed = await call(sp.api, 'changes.list', { sessionId: session.id }, PANEL);
    expect(listed.folders.map((f) => [f.name, f.backend, f.backendReason ?? null])).toEqual([
      ['mine', 'overlay', null],
      [
        'read-only',
        'copy',
        `the sandbox's user could not change ${readOnly} under the folder's own permissions, so it is given a copy`,
      ],
    ]);
    // both are writable inside; neither folder of the person's changes
    const result = await call(
      sp.api,
      'sessions.execute',
      {
        sessionId: session.id,
        code: "for d in ('mine', 'read-only'):\n    open(f'/workspace/shared/{d}/new.txt', 'w').write(d)\nprint('ok')",
      },
      PANEL,
    );
    expect(result.stdout).toBe('ok\n');
    expect((await readdir(mine)).sort()).toEqual(['a.txt']);
    expect((await readdir(readOnly)).sort()).toEqual(['b.txt']);
    await call(sp.api, 'sessions.stop', { sessionId: session.id }, PANEL);
  }, 120_000);

  it("reads a folder deleted and made again (opaque): the person's files below it are deleted; one discarded comes back alone", async () => {
    const docs = await writableFolder(root, 'docs', {
      'old/one.txt': 'one\n',
      'old/two.txt': 'two\n',
      'keep.txt': 'keep\n',
    });
    const session = await call(sp.api, 'sessions.create', {}, PANEL);
    const shared = await call(
      sp.api,
      'sessions.addFolder',
      { sessionId: session.id, folder: { hostPath: docs, mode: 'review' } },
      PANEL,
    );
    const mount = shared.folders[0]!.mountPath;
    await call(
      sp.api,
      'sessions.execute',
      {
        sessionId: session.id,
        code: `import os, shutil\nshutil.rmtree('${mount}/old')\nos.mkdir('${mount}/old')\nopen('${mount}/old/three.txt', 'w').write('three\\n')`,
      },
      PANEL,
    );
    const changes = async (): Promise<string[]> =>
      (await call(sp.api, 'changes.list', { sessionId: session.id }, PANEL)).folders[0]!.changes.map(
        (c) => `${c.kind} ${c.path}`,
      );
    expect(await changes()).toEqual(['deleted old/one.txt', 'added old/three.txt', 'deleted old/two.txt']);
    const { outcomes } = await call(
      sp.api,
      'changes.discard',
      { sessionId: session.id, mountPath: mount, paths: ['old/one.txt'] },
      PANEL,
    );
    expect(outcomes.map((o) => [o.path, o.done, o.message])).toEqual([
      ['old/one.txt', true, 'Discarded: the session now has your version.'],
    ]);
    const inside = await call(
      sp.api,
      'sessions.execute',
      { sessionId: session.id, code: `import os\nprint(sorted(os.listdir('${mount}/old')))` },
      PANEL,
    );
    expect(inside.stdout.trim()).toBe("['one.txt', 'three.txt']");
    expect(await changes()).toEqual(['added old/three.txt', 'deleted old/two.txt']);
    expect((await readdir(join(docs, 'old'))).sort()).toEqual(['one.txt', 'two.txt']);
    await call(sp.api, 'sessions.stop', { sessionId: session.id }, PANEL);
  }, 120_000);
});

describe('an overlay review folder under gVisor (strong isolation)', () => {
  it('keeps the writes above the folder, lists them, and takes one back', async () => {
    const root = await mkdtemp(join(tmpdir(), 'sandpit-review-overlay-gvisor-'));
    await chmod(root, 0o755);
    const share = await writableFolder(root, 'share', { 'keep.txt': 'keep\n', 'gone.txt': 'gone\n' });
    const sp = await startCore(join(root, 'home'), { defaultIsolation: 'strong' });
    try {
      const made = await call(sp.api, 'sessions.create', {}, PANEL);
      expect(made.isolation).toBe('strong');
      const mount = (
        await call(
          sp.api,
          'sessions.addFolder',
          { sessionId: made.id, folder: { hostPath: share, mode: 'review' } },
          PANEL,
        )
      ).folders[0]!.mountPath;
      const ran = await call(
        sp.api,
        'sessions.execute',
        {
          sessionId: made.id,
          code: `import os\nos.remove('${mount}/gone.txt')\nopen('${mount}/keep.txt', 'a').write('more\\n')\nprint(sorted(os.listdir('${mount}')))`,
        },
        PANEL,
      );
      expect(ran.stdout.trim()).toBe("['keep.txt']");
      const listed = (await call(sp.api, 'changes.list', { sessionId: made.id }, PANEL)).folders[0]!;
      expect([listed.backend, listed.changes.map((c) => `${c.kind} ${c.path}`)]).toEqual([
        'overlay',
        ['deleted gone.txt', 'changed keep.txt'],
      ]);
      const { outcomes } = await call(
        sp.api,
        'changes.discard',
        { sessionId: made.id, mountPath: mount, paths: ['gone.txt'] },
        PANEL,
      );
      expect(outcomes.map((o) => o.done)).toEqual([true]);
      const again = await call(
        sp.api,
        'sessions.execute',
        { sessionId: made.id, code: `print(open('${mount}/gone.txt').read(), end='')` },
        PANEL,
      );
      expect(again.stdout).toBe('gone\n');
      expect((await readdir(share)).sort()).toEqual(['gone.txt', 'keep.txt']);
      expect(await readFile(join(share, 'keep.txt'), 'utf8')).toBe('keep\n');
    } finally {
      await sp.dispose();
      await rm(root, { recursive: true, force: true });
    }
  }, 180_000);
});

describe('a kept session with an overlay review folder', () => {
  it('keeps its pending changes across a restart; an upper folder swapped for a link while Sandpit is stopped is never used', async () => {
    const root = await mkdtemp(join(tmpdir(), 'sandpit-review-overlay-kept-'));
    await chmod(root, 0o755);
    const home = join(root, 'home');
    const share = await writableFolder(root, 'share', { 'data.txt': 'from the host\n' });
    const victim = join(root, 'victim');
    await mkdir(victim);
    await writeFile(join(victim, 'precious.txt'), 'untouched\n');
    let first: Sandpit | undefined = await startCore(home);
    let second: Sandpit | undefined;
    let third: Sandpit | undefined;
    try {
      const made = await call(first.api, 'sessions.create', {}, PANEL);
      const mount = (
        await call(
          first.api,
          'sessions.addFolder',
          { sessionId: made.id, folder: { hostPath: share, mode: 'review' } },
          PANEL,
        )
      ).folders[0]!.mountPath;
      await call(
        first.api,
        'sessions.execute',
        { sessionId: made.id, code: `open('${mount}/data.txt', 'a').write('from the sandbox\\n')` },
        PANEL,
      );
      await call(first.api, 'sessions.setKept', { sessionId: made.id, keep: true }, PANEL);
      await first.dispose();
      first = undefined;

      second = await startCore(home);
      const listed = await call(second.api, 'changes.list', { sessionId: made.id }, PANEL);
      expect(listed.folders.map((f) => [f.backend, f.changes.map((c) => `${c.kind} ${c.path}`)])).toEqual([
        ['overlay', ['changed data.txt']],
      ]);
      const inside = await call(
        second.api,
        'sessions.execute',
        { sessionId: made.id, code: `print(open('${mount}/data.txt').read(), end='')` },
        PANEL,
      );
      expect(inside.stdout).toBe('from the host\nfrom the sandbox\n');
      expect(await readFile(join(share, 'data.txt'), 'utf8')).toBe('from the host\n');
      await call(
        second.api,
        'sessions.execute',
        { sessionId: made.id, code: `open('${mount}/later.txt', 'w').write('pending')` },
        PANEL,
      );
      await second.dispose();
      second = undefined;

      // while Sandpit is stopped, the upper folder is swapped for a link to another folder of this computer
      const [layerId] = await readdir(join(home, 'review-layers'));
      const upper = join(home, 'review-layers', layerId!, 'upper');
      await rm(upper, { recursive: true });
      await symlink(victim, upper);
      third = await startCore(home);
      await expect(call(third.api, 'changes.list', { sessionId: made.id }, PANEL)).rejects.toThrow(
        `${upper} is not a folder (a link): the layer is not used.`,
      );
      await expect(
        call(
          third.api,
          'sessions.execute',
          { sessionId: made.id, code: `open('${mount}/x.txt', 'w').write('x')` },
          PANEL,
        ),
      ).rejects.toThrow(`${upper} is not a folder (a link): the layer is not used.`);
      expect(await readdir(victim)).toEqual(['precious.txt']);
      expect(await readFile(join(victim, 'precious.txt'), 'utf8')).toBe('untouched\n');
      expect(await readdir(share)).toEqual(['data.txt']);
      await call(third.api, 'sessions.stop', { sessionId: made.id }, PANEL);
      expect(await readdir(join(home, 'review-layers'))).toEqual([]);
      expect(await readdir(victim)).toEqual(['precious.txt']);
    } finally {
      await first?.dispose();
      await second?.dispose();
      await third?.dispose();
      await rm(root, { recursive: true, force: true });
    }
  }, 180_000);
});
