// Snapshots and forks carry review folders ("Changes need my OK") and their pending changes, on both backends:
// the workspace walk never enters the folder (nothing counted twice, no file of the person's in the snapshot);
// a fork and a restore in the panel get the folder back with the same pending changes (a special file is named as
// not carried), the sandbox sees the session's versions and the person's folder is untouched; a change the person
// made since is a conflict in the restored session; an assistant's restore does not get the folder.
import { chmod, chown, lstat, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FolderChange } from '../../shared/domain/folder-changes';
import type { CallContext } from '../api/api-types';
import { call } from '../api/dispatcher';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';

const PANEL: CallContext = { transport: 'ipc', client: 'panel' };
const ASSISTANT: CallContext = { transport: 'mcp-stdio', client: 'assistant-a', principal: 'principal-a' };
const MOUNT = '/workspace/shared/sales';

/** What a review says of each change, whoever's session it is. */
const review = (changes: FolderChange[]): unknown[] =>
  changes.map((c) => ({
    path: c.path,
    kind: c.kind,
    from: c.from ?? null,
    before: c.before ?? null,
    after: c.after ?? null,
    refused: c.refused?.reason ?? null,
    conflict: c.conflict ?? null,
    text: c.text,
  }));

async function tree(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    for (const name of (await readdir(join(dir, rel))).sort()) {
      const path = rel ? `${rel}/${name}` : name;
      const info = await lstat(join(dir, path));
      if (info.isDirectory()) await walk(path);
      else out.push(`${path}=${info.isFile() ? await readFile(join(dir, path), 'utf8') : 'other'}`);
    }
  };
  await walk('');
  return out;
}

for (const backend of ['copy', 'overlay'] as const) {
  describe(`snapshots and forks of a session with a review folder (${backend} backend)`, () => {
    let sp: TestSandpit;
    let root: string;
    let sales: string;
    let sourceId: string;
    let original: string[];
    let pending: unknown[];
    let snapshotId: string;

    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), 'sandpit-review-snap-'));
      await chmod(root, 0o755);
      sales = join(root, 'sales');
      await mkdir(join(sales, 'old'), { recursive: true });
      await writeFile(join(sales, 'sales.csv'), 'region,total\nnorth,10\n');
      await writeFile(join(sales, 'gone.txt'), 'bye\n');
      await writeFile(join(sales, 'move-me.txt'), 'moving\n');
      await writeFile(join(sales, 'old', 'inner.txt'), 'inner\n');
      for (const p of [
        sales,
        join(sales, 'old'),
        join(sales, 'sales.csv'),
        join(sales, 'gone.txt'),
        join(sales, 'move-me.txt'),
        join(sales, 'old', 'inner.txt'),
      ])
        await chown(p, 10001, 10001);
      original = await tree(sales);
      sp = await startTestSandpit({ reviewLayers: backend });
      const session = await call(sp.api, 'sessions.create', {}, PANEL);
      sourceId = session.id;
      await call(
        sp.api,
        'sessions.addFolder',
        { sessionId: sourceId, folder: { hostPath: sales, mode: 'review' } },
        PANEL,
      );
      const made = await call(
        sp.api,
        'sessions.execute',
        {
          sessionId: sourceId,
          code: [
            'import os',
            `os.chdir('${MOUNT}')`,
            "open('sales.csv', 'a').write('south,20\\n')",
            "open('new.txt', 'w').write('made by the session\\n')",
            "os.remove('gone.txt')",
            "os.rename('move-me.txt', 'moved.txt')",
            "os.symlink('/etc/passwd', 'planted-link')",
            "os.mkfifo('planted-pipe')",
            "open('/workspace/own.txt', 'w').write('a workspace file')",
          ].join('\n'),
        },
        PANEL,
      );
      expect(made.stderr).toBe('');
      const listed = (await call(sp.api, 'changes.list', { sessionId: sourceId }, PANEL)).folders[0]!;
      expect(listed.backend).toBe(backend);
      pending = review(listed.changes.filter((c) => c.path !== 'planted-pipe'));
      expect(listed.changes.map((c) => `${c.kind} ${c.path}`)).toEqual([
        'deleted gone.txt',
        'renamed moved.txt',
        'added new.txt',
        'added planted-link',
        'added planted-pipe',
        'changed sales.csv',
      ]);
    });
    afterAll(async () => {
      await sp?.cleanup();
      if (root) await rm(root, { recursive: true, force: true });
    });

    it('keeps the pending changes apart from the workspace: the walk never enters the folder', async () => {
      const snap = await call(sp.api, 'snapshots.create', { sessionId: sourceId }, PANEL);
      snapshotId = snap.id;
      expect(snap.reviewFolders).toEqual([{ hostPath: sales, mountPath: MOUNT, changes: 6 }]);
      expect(snap.sharedFoldersLeftOut).toEqual([]);
      expect(snap.skipped).toContain('shared/sales/planted-pipe (a device, pipe or socket: not carried)');
      const manifest = JSON.parse(
        await readFile(join(sp.config.home, 'snapshots', 'manifests', `${snap.id}.json`), 'utf8'),
      ) as {
        files: Array<{ path: string }>;
        reviewFolders: Array<{ entries: Array<{ kind: string; path: string }> }>;
      };
      expect(manifest.files.map((f) => f.path)).toEqual(['own.txt']);
      expect(snap.files).toBe(1);
      expect(manifest.reviewFolders[0]!.entries.map((e) => `${e.kind} ${e.path}`).sort()).toEqual([
        'deleted gone.txt',
        'deleted move-me.txt',
        'file moved.txt',
        'file new.txt',
        'file sales.csv',
        'link planted-link',
      ]);
    });

    it("gives a fork the folder with the same pending changes; its sandbox sees them, the person's folder does not", async () => {
      const fork = await call(sp.api, 'sessions.fork', { sessionId: sourceId }, PANEL);
      expect(fork.reviewFolders).toEqual([
        {
          hostPath: sales,
          mountPath: MOUNT,
          carried: true,
          message:
            'Shared again with "Changes need my OK": its 6 pending changes wait for the person\'s OK in this session.',
        },
      ]);
      const listed = (await call(sp.api, 'changes.list', { sessionId: fork.session.id }, PANEL)).folders[0]!;
      expect(listed.backend).toBe(backend);
      expect(review(listed.changes)).toEqual(pending);
      const inside = await call(
        sp.api,
        'sessions.execute',
        {
          sessionId: fork.session.id,
          code: `import os\nprint(sorted(os.listdir('${MOUNT}')), open('${MOUNT}/sales.csv').read(), os.readlink('${MOUNT}/planted-link'))`,
        },
        PANEL,
      );
      expect(inside.stdout.trim()).toBe(
        "['moved.txt', 'new.txt', 'old', 'planted-link', 'sales.csv'] region,total\nnorth,10\nsouth,20\n /etc/passwd",
      );
      expect(await tree(sales)).toEqual(original);
      await call(sp.api, 'sessions.stop', { sessionId: fork.session.id }, PANEL);
    });

    it("restores in the panel with a conflict where the person changed a file since; an assistant's restore gets no folder", async () => {
      await call(sp.api, 'sessions.stop', { sessionId: sourceId }, PANEL);
      await writeFile(join(sales, 'sales.csv'), 'region,total\nnorth,11\n');
      const restored = await call(sp.api, 'snapshots.restore', { snapshot: snapshotId }, PANEL);
      expect(restored.reviewFolders?.map((f) => f.carried)).toEqual([true]);
      const changes = (await call(sp.api, 'changes.list', { sessionId: restored.session.id }, PANEL)).folders[0]!
        .changes;
      expect(changes.map((c) => [c.path, c.conflict ?? null])).toEqual([
        ['gone.txt', null],
        ['moved.txt', null],
        ['new.txt', null],
        ['planted-link', null],
        ['sales.csv', 'You changed this file on your computer after it was shared.'],
      ]);
      const { outcomes } = await call(
        sp.api,
        'changes.apply',
        { sessionId: restored.session.id, mountPath: MOUNT, paths: ['new.txt', 'sales.csv'] },
        PANEL,
      );
      expect(outcomes.map((o) => [o.path, o.done])).toEqual([
        ['new.txt', true],
        ['sales.csv', false],
      ]);
      expect(await readFile(join(sales, 'new.txt'), 'utf8')).toBe('made by the session\n');
      expect(await readFile(join(sales, 'sales.csv'), 'utf8')).toBe('region,total\nnorth,11\n');

      const theirs = await call(sp.api, 'snapshots.restore', { snapshot: snapshotId }, ASSISTANT);
      expect(theirs.reviewFolders).toEqual([
        {
          hostPath: sales,
          mountPath: MOUNT,
          carried: false,
          message:
            "Not given to this session: an assistant's restore does not get the person's folders. Restored in the Sandpit panel, the session gets the folder back with its pending changes.",
        },
      ]);
      expect(theirs.session.folders).toEqual([]);
    });
  });
}
