import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSandpitError } from '../../shared/api/errors';
import { onEngine, testEngines } from '../../test-support/engines';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { listWorkspace, readWorkspaceFile, writeWorkspaceFile } from './workspace-files';
import { newSession } from '../../test-support/sessions';

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(full)));
    else out.push(full);
  }
  return out;
}

// On both engines: Docker, and Podman through its Docker-compatible API (its archive calls and volumes).
for (const { engine, label, skip } of testEngines()) {
  describe(`on ${label}`, () => {
    describe.skipIf(skip)('files in and out of a session', () => {
      let sp: TestSandpit;
      let id: string;
      const sandbox = (): ReturnType<TestSandpit['sessions']['session']>['runtime'] => sp.sessions.session(id).runtime;

      beforeAll(async () => {
        sp = await startTestSandpit(onEngine(engine));
        const info = await newSession(sp, {});
        id = info.id;
      });
      afterAll(async () => sp?.cleanup());

      it('uploads, lists and downloads regular files', async () => {
        await writeWorkspaceFile(sandbox(), 'data/in.csv', Buffer.from('a,b\n1,2\n'));
        const r = await sp.sessions.session(id).execute("open('/workspace/data/in.csv').read()");
        expect(r.result).toBe("'a,b\\n1,2\\n'");
        const entries = await listWorkspace(sandbox(), 'data');
        expect(entries).toEqual([expect.objectContaining({ path: 'data/in.csv', type: 'file', size: 8 })]);
        const back = await readWorkspaceFile(sandbox(), '/workspace/data/in.csv');
        expect(back.content.toString()).toBe('a,b\n1,2\n');
      });

      it('refuses traversal and absolute names before anything reaches the container', async () => {
        for (const bad of ['../escape.txt', 'a/../../b', '/etc/passwd', 'x\0y']) {
          await expect(writeWorkspaceFile(sandbox(), bad, Buffer.from('x'))).rejects.toSatisfy((e: unknown) =>
            isSandpitError(e, 'INVALID_INPUT'),
          );
        }
        const r = await sp.sessions
          .session(id)
          .execute("import os\nos.path.exists('/escape.txt') or os.path.exists('/workspace/../escape.txt')");
        expect(r.result).toBe('False');
      });

      it('refuses to download a symlink (even one pointing at a real file) or a directory', async () => {
        await sp.sessions
          .session(id)
          .execute(
            "import os\nos.symlink('/etc/passwd', '/workspace/link')\nos.makedirs('/workspace/dir', exist_ok=True)",
          );
        await expect(readWorkspaceFile(sandbox(), 'link')).rejects.toSatisfy((e: unknown) =>
          isSandpitError(e, 'INVALID_INPUT'),
        );
        await expect(readWorkspaceFile(sandbox(), 'dir')).rejects.toSatisfy((e: unknown) =>
          isSandpitError(e, 'INVALID_INPUT'),
        );
      });

      it('reports files a run created or changed and keeps them as artifacts after the session ends', async () => {
        const { id: sid } = await newSession(sp, {});
        const r = await sp.sessions
          .session(sid)
          .execute(
            [
              "open('/workspace/report.txt', 'w').write('hello artifact')",
              "import os\nos.makedirs('/workspace/out', exist_ok=True)",
              "open('/workspace/out/data.json', 'w').write('{\"a\": 1}')",
              "os.symlink('/etc/shadow', '/workspace/sneaky')",
            ].join('\n'),
          );
        expect(r.files.map((f) => f.path).sort()).toEqual(['out/data.json', 'report.txt']);
        expect(r.artifacts.map((a) => [a.path, a.mime]).sort()).toEqual([
          ['out/data.json', 'application/json'],
          ['report.txt', 'text/plain'],
        ]);
        await sp.sessions.stop(sid);
        const report = r.artifacts.find((a) => a.path === 'report.txt')!;
        expect((await sp.artifacts.get(report.sha256)).content.toString()).toBe('hello artifact');
        // Everything the store wrote is inside its own folder.
        const files = await walk(join(sp.config.home, 'artifacts'));
        expect(files.length).toBeGreaterThan(0);
        for (const f of files) expect(f.startsWith(join(sp.config.home, 'artifacts'))).toBe(true);
      });

      it('does not report unchanged files on later runs', async () => {
        const r1 = await sp.sessions.session(id).execute("open('/workspace/once.txt', 'w').write('1')");
        expect(r1.files.map((f) => f.path)).toContain('once.txt');
        const r2 = await sp.sessions.session(id).execute('1');
        expect(r2.files).toEqual([]);
      });
    });
  });
}
