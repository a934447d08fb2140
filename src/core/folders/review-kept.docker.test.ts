// A kept session keeps its pending changes to a review folder across a restart of Sandpit (the change is still
// listed, still in the sandbox, the person's folder still untouched, and Apply works on the new core); stopping
// the session removes its layer, and with it the pending changes.
import { chmod, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { CallContext } from '../api/api-types';
import { call } from '../api/dispatcher';
import { createSandpit } from '../app';
import type { Sandpit } from '../app';
import { defaultConfig } from '../config';
import { silentLogger } from '../log';

const PANEL: CallContext = { transport: 'ipc', client: 'panel' };

async function startCore(home: string): Promise<Sandpit> {
  const images = inject('images');
  if (!images.python) throw new Error('The python executor image was not built by the docker globalSetup.');
  return createSandpit(
    defaultConfig({ home, poolSize: 0, egressProxy: false, graceMs: 2_000, images: { ...images } }),
    { logger: silentLogger },
  );
}

describe('a kept session with a review folder', () => {
  it('keeps its pending changes across a restart; stopping it removes them', async () => {
    const home = await mkdtemp(join(tmpdir(), 'sandpit-review-kept-'));
    const share = await mkdtemp(join(tmpdir(), 'sandpit-review-kept-share-'));
    await chmod(share, 0o755);
    await writeFile(join(share, 'data.txt'), 'from the host\n');
    let first: Sandpit | undefined = await startCore(home);
    let second: Sandpit | undefined;
    try {
      const made = await call(first.api, 'sessions.create', {}, PANEL);
      const shared = await call(
        first.api,
        'sessions.addFolder',
        { sessionId: made.id, folder: { hostPath: share, mode: 'review' } },
        PANEL,
      );
      const mount = shared.folders[0]!.mountPath;
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
      expect(listed.folders.map((f) => [f.mountPath, f.changes.map((c) => [c.path, c.kind])])).toEqual([
        [mount, [['data.txt', 'changed']]],
      ]);
      expect(await readFile(join(share, 'data.txt'), 'utf8')).toBe('from the host\n');
      const inside = await call(
        second.api,
        'sessions.execute',
        { sessionId: made.id, code: `print(open('${mount}/data.txt').read(), end='')` },
        PANEL,
      );
      expect(inside.stdout).toBe('from the host\nfrom the sandbox\n');
      const { outcomes } = await call(second.api, 'changes.apply', { sessionId: made.id, mountPath: mount }, PANEL);
      expect(outcomes.map((o) => [o.path, o.done])).toEqual([['data.txt', true]]);
      expect(await readFile(join(share, 'data.txt'), 'utf8')).toBe('from the host\nfrom the sandbox\n');

      await call(
        second.api,
        'sessions.execute',
        { sessionId: made.id, code: `open('${mount}/new.txt', 'w').write('pending')` },
        PANEL,
      );
      expect((await readdir(join(home, 'review-layers'))).length).toBe(1);
      await call(second.api, 'sessions.stop', { sessionId: made.id }, PANEL);
      expect(await readdir(join(home, 'review-layers'))).toEqual([]);
      expect(await readdir(share)).toEqual(['data.txt']);
    } finally {
      await first?.dispose();
      await second?.dispose();
      await rm(home, { recursive: true, force: true });
      await rm(share, { recursive: true, force: true });
    }
  }, 120_000);

  it('gives each session of an environment with a review folder its own layer', async () => {
    const home = await mkdtemp(join(tmpdir(), 'sandpit-review-env-'));
    const share = await mkdtemp(join(tmpdir(), 'sandpit-review-env-share-'));
    await chmod(share, 0o755);
    await writeFile(join(share, 'data.txt'), 'from the host\n');
    const sp = await startCore(home);
    try {
      await call(
        sp.api,
        'environments.create',
        { name: 'Review env', language: 'python', folders: [{ hostPath: share, mode: 'review' }] },
        PANEL,
      );
      const a = await call(sp.api, 'sessions.create', { environment: 'Review env' }, PANEL);
      const b = await call(sp.api, 'sessions.create', { environment: 'Review env' }, PANEL);
      const mount = a.folders[0]!.mountPath;
      expect(a.folders[0]!.mode).toBe('review');
      await call(
        sp.api,
        'sessions.execute',
        { sessionId: a.id, code: `open('${mount}/made-by-a.txt', 'w').write('a')` },
        PANEL,
      );
      const seenByB = await call(
        sp.api,
        'sessions.execute',
        { sessionId: b.id, code: `import os\nprint(sorted(os.listdir('${mount}')))` },
        PANEL,
      );
      expect(seenByB.stdout.trim()).toBe("['data.txt']");
      const listed = await call(sp.api, 'changes.list', {}, PANEL);
      expect(listed.folders.map((f) => [f.sessionId, f.changes.map((c) => `${c.kind} ${c.path}`)])).toEqual(
        expect.arrayContaining([
          [a.id, ['added made-by-a.txt']],
          [b.id, []],
        ]),
      );
      expect(await readdir(share)).toEqual(['data.txt']);
      expect((await readdir(join(home, 'review-layers'))).length).toBe(2);
    } finally {
      await sp.dispose();
      await rm(home, { recursive: true, force: true });
      await rm(share, { recursive: true, force: true });
    }
  }, 120_000);
});
