// Review folders ("Changes need my OK") on the real engine, on both backends (a copy, and an overlay the engine
// mounts over the person's folder) and on Docker and Podman — the same review, word for word: code in the sandbox writes, appends,
// truncates, renames, deletes, makes folders, chmods, plants links (relative, absolute, to ..) and a FIFO; the
// person's folder stays byte for byte the same until Apply; the review lists each change; an assistant sees it
// (list_changes, the run's text) but cannot apply; Apply writes exactly the reviewed content (mode kept, the
// deletion to the trash); links and special files are refused; a host-side change is a conflict; Discard puts
// the person's version back in the sandbox; every apply and discard is an audit row with the hashes.
import { createHash } from 'node:crypto';
import { chmod, chown, lstat, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FolderChange } from '../../shared/domain/folder-changes';
import type { SessionInfo } from '../../shared/domain/session';
import type { CallContext } from '../api/api-types';
import { call } from '../api/dispatcher';
import { DockerodeClient } from '../docker/dockerode-client';
import { silentLogger } from '../log';
import { createMcpServer } from '../mcp/create-mcp-server';
import { onEngine, testEngines } from '../../test-support/engines';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';

const PANEL: CallContext = { transport: 'ipc', client: 'panel' };
const ASSISTANT: CallContext = { transport: 'mcp-stdio', client: 'review-test', principal: 'p-review' };
const MOUNT = '/workspace/shared/sales';
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

/** Every entry of a folder: path → sha256 and mode of files, 'dir' for folders, 'other' for the rest. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (rel: string): Promise<void> => {
    for (const name of (await readdir(join(dir, rel))).sort()) {
      const path = rel ? `${rel}/${name}` : name;
      const info = await lstat(join(dir, path));
      if (info.isDirectory()) {
        out[path] = `dir ${(info.mode & 0o7777).toString(8)}`;
        await walk(path);
      } else if (info.isFile())
        out[path] = `${createHash('sha256')
          .update(await readFile(join(dir, path)))
          .digest('hex')} ${(info.mode & 0o7777).toString(8)}`;
      else out[path] = 'other';
    }
  };
  await walk('');
  return out;
}

const sha = (content: string | Buffer): string => createHash('sha256').update(content).digest('hex');

/** Every folder and file below `dir` given to `uid` (the person's folder, as the sandbox user may change it under its own permissions). */
async function chownAll(dir: string, uid: number): Promise<void> {
  await chown(dir, uid, uid);
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    if ((await lstat(path)).isDirectory()) await chownAll(path, uid);
    else await chown(path, uid, uid);
  }
}

for (const { engine, label, skip } of testEngines())
  for (const backend of ['copy', 'overlay'] as const) {
    describe.skipIf(skip)(`review folders (${backend} backend) on ${label}`, () => {
      let sp: TestSandpit;
      let root: string;
      let sales: string;
      let trash: string;
      let session: SessionInfo;
      let client: Client;
      let original: Record<string, string>;
      const savedXdg = process.env.XDG_DATA_HOME;

      beforeAll(async () => {
        root = await mkdtemp(join(tmpdir(), 'sandpit-review-'));
        // The trash of this test, never the machine's own
        process.env.XDG_DATA_HOME = join(root, 'xdg');
        trash = join(root, 'xdg', 'Trash');
        sales = join(root, 'sales');
        await mkdir(join(root, 'outside'));
        await writeFile(join(root, 'outside', 'secret.txt'), 'secret');
        await mkdir(join(sales, 'old'), { recursive: true });
        await writeFile(join(sales, 'sales.csv'), 'region,total\nnorth, 10\nsouth,20\n');
        await writeFile(join(sales, 'notes.txt'), 'first line\n');
        await writeFile(join(sales, 'drop-me.txt'), 'to be deleted\n');
        await writeFile(join(sales, 'rename-me.txt'), 'moving house\n');
        await writeFile(join(sales, 'long.txt'), 'a\nb\nc\n');
        await writeFile(join(sales, 'run.sh'), 'echo hi\n');
        await writeFile(join(sales, 'old', 'inner.txt'), 'inner\n');
        await chmod(join(sales, 'run.sh'), 0o644);
        await chmod(root, 0o755);
        // the same folder for both backends: one the sandbox user may change as it stands (an overlay keeps its owners)
        await chownAll(sales, 10001);
        original = await snapshot(sales);

        sp = await startTestSandpit({ ...onEngine(engine), reviewLayers: backend });
        session = await call(sp.api, 'sessions.create', {}, PANEL);
        const mcp = createMcpServer({ sandpit: sp, context: () => ASSISTANT });
        const [a, b] = InMemoryTransport.createLinkedPair();
        await mcp.server.connect(b);
        client = new Client({ name: 'review-test', version: '1' });
        await client.connect(a);
      });
      afterAll(async () => {
        await client?.close();
        await sp?.cleanup();
        if (savedXdg === undefined) delete process.env.XDG_DATA_HOME;
        else process.env.XDG_DATA_HOME = savedXdg;
        if (root) await rm(root, { recursive: true, force: true });
      });

      const run = async (code: string): Promise<{ status: string; stdout: string; stderr: string }> =>
        call(sp.api, 'sessions.execute', { sessionId: session.id, code }, PANEL);
      const changes = async (): Promise<FolderChange[]> =>
        (await call(sp.api, 'changes.list', { sessionId: session.id }, PANEL)).folders[0]!.changes;

      it('shares the folder with "Changes need my OK": writable inside, the person\'s folder untouched', async () => {
        session = await call(
          sp.api,
          'sessions.addFolder',
          { sessionId: session.id, folder: { hostPath: sales, mode: 'review' } },
          PANEL,
        );
        expect(session.folders).toEqual([{ name: 'sales', hostPath: sales, mountPath: MOUNT, mode: 'review' }]);
        const listed = await call(sp.api, 'changes.list', { sessionId: session.id }, PANEL);
        expect(listed.folders.map((f) => [f.backend, f.backendReason ?? null])).toEqual([
          [backend, backend === 'copy' ? 'SANDPIT_REVIEW_LAYERS asks for copies' : null],
        ]);
        const code = [
          'import os',
          `os.chdir('${MOUNT}')`,
          "open('sales.csv', 'w').write('region,total\\nnorth,10\\nsouth,20\\n')",
          "open('notes.txt', 'a').write('second line\\n')",
          "open('long.txt', 'w').close()",
          "os.rename('rename-me.txt', 'renamed.txt')",
          "os.remove('drop-me.txt')",
          "os.makedirs('charts/2026')",
          `open('charts/2026/chart.png', 'wb').write(bytes.fromhex('${PNG.toString('hex')}'))`,
          "os.chmod('run.sh', 0o755)",
          "os.symlink('../../outside/secret.txt', 'rel-link')",
          "os.symlink('/etc/passwd', 'abs-link')",
          "os.symlink('..', 'up-link')",
          "os.mkfifo('pipe')",
          "print(sorted(os.listdir('.')))",
        ].join('\n');
        const result = await run(code);
        expect(result.stderr).toBe('');
        expect(result.stdout.trim()).toBe(
          "['abs-link', 'charts', 'long.txt', 'notes.txt', 'old', 'pipe', 'rel-link', 'renamed.txt', 'run.sh', 'sales.csv', 'up-link']",
        );
        expect(await snapshot(sales)).toEqual(original);
      });

      it('lists each change with its kind and size; links and the FIFO are refused with why', async () => {
        const listed = await changes();
        const brief = listed.map((c) => [
          c.path,
          c.kind,
          c.from ?? null,
          c.after?.size ?? null,
          c.refused?.reason ?? null,
          c.conflict ?? null,
        ]);
        expect(brief).toEqual(
          [
            ['abs-link', 'added', null, null, 'link', null],
            ['charts/2026/chart.png', 'added', null, PNG.length, null, null],
            ['long.txt', 'changed', null, 0, null, null],
            ['notes.txt', 'changed', null, 23, null, null],
            ['pipe', 'added', null, null, 'special-file', null],
            ['rel-link', 'added', null, null, 'link', null],
            ['renamed.txt', 'renamed', 'rename-me.txt', 13, null, null],
            ['run.sh', 'changed', null, 8, null, null],
            ['sales.csv', 'changed', null, 31, null, null],
            ['up-link', 'added', null, null, 'link', null],
            ['drop-me.txt', 'deleted', null, null, null, null],
          ].sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1)),
        );
        expect(listed.find((c) => c.path === 'run.sh')!.after!.mode).toBe(0o755);
        expect(listed.find((c) => c.path === 'charts/2026/chart.png')!.image).toBe('image/png');
        expect(listed.find((c) => c.path === 'abs-link')!.refused!.message).toBe(
          'A link is never applied to your folder: it could point anywhere on your computer.',
        );
        const diff = await call(
          sp.api,
          'changes.diff',
          { sessionId: session.id, mountPath: MOUNT, path: 'sales.csv' },
          PANEL,
        );
        expect(diff.whitespaceOnly).toBe(true);
        expect(diff.rows!.filter((r) => r.kind !== 'same')).toEqual([
          { kind: 'changed', left: 'north, 10', right: 'north,10', leftLine: 2, rightLine: 2 },
        ]);
      });

      it("tells the assistant what waits (list_changes, the run's text) and refuses it Apply", async () => {
        const tool = await client.callTool({ name: 'list_changes', arguments: { session_id: session.id } });
        const text = (tool.content as Array<{ type: string; text: string }>)[0]!.text;
        expect(text).toContain(
          "11 changes wait for the person's OK in the Sandpit panel (they are not in the person's folder yet):",
        );
        expect(text).toContain('- notes.txt: changed, 23 B');
        expect(text).toContain('+second line');
        const executed = await client.callTool({
          name: 'execute_code',
          arguments: { session_id: session.id, code: 'print(1)' },
        });
        expect((executed.content as Array<{ type: string; text: string }>)[0]!.text).toContain(
          `11 changes in ${MOUNT} wait for the person's OK in Sandpit: they are not in the person's folder until the person applies them (list_changes shows them).`,
        );
        await expect(
          call(sp.api, 'changes.apply', { sessionId: session.id, mountPath: MOUNT }, ASSISTANT),
        ).rejects.toMatchObject({ code: 'DENIED' });
        await expect(
          call(sp.api, 'changes.discard', { sessionId: session.id, mountPath: MOUNT }, ASSISTANT),
        ).rejects.toMatchObject({ code: 'DENIED' });
        expect(await snapshot(sales)).toEqual(original);
      });

      it('makes a host-side change a conflict: nothing overwritten', async () => {
        await writeFile(join(sales, 'notes.txt'), 'the person wrote this\n');
        const notes = (await changes()).find((c) => c.path === 'notes.txt')!;
        expect(notes.conflict).toBe('You changed this file on your computer after it was shared.');
        const { outcomes } = await call(
          sp.api,
          'changes.apply',
          { sessionId: session.id, mountPath: MOUNT, paths: ['notes.txt'] },
          PANEL,
        );
        expect(outcomes).toEqual([
          {
            path: 'notes.txt',
            done: false,
            message:
              "Not applied: You changed this file on your computer after it was shared. Your version is kept; discard the session's change, or change your file back.",
          },
        ]);
        expect(await readFile(join(sales, 'notes.txt'), 'utf8')).toBe('the person wrote this\n');
      });

      it('applies exactly what was reviewed: content, mode, new folders, the rename, the deletion to the trash', async () => {
        const reviewed = await changes();
        const expectMap = Object.fromEntries(reviewed.map((c) => [c.path, c.after?.sha256 ?? null]));
        const { outcomes } = await call(
          sp.api,
          'changes.apply',
          {
            sessionId: session.id,
            mountPath: MOUNT,
            paths: ['sales.csv', 'run.sh', 'charts/2026/chart.png', 'renamed.txt', 'drop-me.txt', 'rel-link', 'pipe'],
            expect: expectMap,
          },
          PANEL,
        );
        const byPath = Object.fromEntries(outcomes.map((o) => [o.path, o]));
        expect(byPath['rel-link']).toMatchObject({
          done: false,
          message: 'Not applied: A link is never applied to your folder: it could point anywhere on your computer.',
        });
        expect(byPath['pipe']).toMatchObject({
          done: false,
          message: 'Not applied: A device, pipe or socket is never applied to your folder.',
        });
        for (const path of ['sales.csv', 'run.sh', 'charts/2026/chart.png', 'renamed.txt', 'drop-me.txt'])
          expect(byPath[path]?.done, path).toBe(true);
        expect(await readFile(join(sales, 'sales.csv'), 'utf8')).toBe('region,total\nnorth,10\nsouth,20\n');
        expect(sha(await readFile(join(sales, 'charts/2026/chart.png')))).toBe(expectMap['charts/2026/chart.png']);
        expect((await lstat(join(sales, 'run.sh'))).mode & 0o777).toBe(0o755);
        expect(await readFile(join(sales, 'renamed.txt'), 'utf8')).toBe('moving house\n');
        await expect(lstat(join(sales, 'rename-me.txt'))).rejects.toThrow(/ENOENT/);
        await expect(lstat(join(sales, 'drop-me.txt'))).rejects.toThrow(/ENOENT/);
        expect(await readFile(join(trash, 'files', 'drop-me.txt'), 'utf8')).toBe('to be deleted\n');
        expect(await readFile(join(trash, 'info', 'drop-me.txt.trashinfo'), 'utf8')).toMatch(
          new RegExp(
            `^\\[Trash Info\\]\\nPath=${join(sales, 'drop-me.txt')}\\nDeletionDate=\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\n$`,
          ),
        );
        for (const planted of ['rel-link', 'abs-link', 'up-link', 'pipe'])
          await expect(lstat(join(sales, planted))).rejects.toThrow(/ENOENT/);
        // No temp file left beside the applied ones
        expect((await readdir(sales)).filter((n) => n.includes('.sandpit-'))).toEqual([]);
        const left = (await changes()).map((c) => c.path);
        expect(left).toEqual(['abs-link', 'long.txt', 'notes.txt', 'pipe', 'rel-link', 'up-link']);
      });

      it("discards: the sandbox gets the person's version back, the person's folder is not touched", async () => {
        const before = await snapshot(sales);
        const { outcomes } = await call(
          sp.api,
          'changes.discard',
          { sessionId: session.id, mountPath: MOUNT, paths: ['long.txt', 'notes.txt', 'abs-link', 'pipe'] },
          PANEL,
        );
        expect(outcomes.every((o) => o.done)).toBe(true);
        expect(await snapshot(sales)).toEqual(before);
        const inside = await run(
          `import os\nprint(repr(open('${MOUNT}/long.txt').read()), repr(open('${MOUNT}/notes.txt').read()), os.path.lexists('${MOUNT}/abs-link'), os.path.lexists('${MOUNT}/pipe'))`,
        );
        expect(inside.stdout.trim()).toBe("'a\\nb\\nc\\n' 'the person wrote this\\n' False False");
        expect((await changes()).map((c) => c.path)).toEqual(['rel-link', 'up-link']);
      });

      it('audits every apply and discard: which files, hashes before and after, who', async () => {
        const { rows } = await call(sp.api, 'audit.list', { filters: {}, limit: 50 }, PANEL);
        const applied = rows.filter((r) => r.method === 'changes.apply');
        const discarded = rows.filter((r) => r.method === 'changes.discard');
        expect(applied.length).toBe(2);
        expect(discarded.length).toBe(1);
        const entry = await call(sp.api, 'audit.get', { id: applied[0]!.id }, PANEL);
        expect(entry.client).toBe('panel');
        expect(entry.code.split('\n')[0]).toBe(`folder ${MOUNT}`);
        expect(entry.stdout).toContain(
          `done: sales.csv — Applied: your file now has the session's version. (sha256 before ${sha('region,total\nnorth, 10\nsouth,20\n')}, after ${sha('region,total\nnorth,10\nsouth,20\n')})`,
        );
        expect(entry.stderr).toContain('not done: rel-link');
      });

      it("drops the layer (and an overlay's engine volume) when the folder is removed from the session", async () => {
        const layers = join(sp.config.home, 'review-layers');
        const made = await readdir(layers);
        expect(made.length).toBe(1);
        const docker = new DockerodeClient({
          logger: silentLogger,
          ...(onEngine(engine).dockerHost ? { host: onEngine(engine).dockerHost } : {}),
        });
        const volume = `sandpit-review-${made[0]}`;
        expect((await docker.inspectVolume(volume))?.options.type ?? null).toBe(
          backend === 'overlay' ? 'overlay' : null,
        );
        await call(sp.api, 'sessions.removeFolder', { sessionId: session.id, mountPath: MOUNT }, PANEL);
        expect(await readdir(layers)).toEqual([]);
        expect(await docker.inspectVolume(volume)).toBeUndefined();
      });
    });
  }
