// The workspace behaves like a disk: full is ENOSPC (never an OOM), the memory limit is not spent on it,
// its files survive a restart of the sandbox. Attacked from inside the container, on the real engine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canLoopMount } from '../docker/workspace-storage';
import { newSession } from '../../test-support/sessions';
import { onEngine, testEngines } from '../../test-support/engines';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';

// On both engines: Docker, and Podman (its local volume driver mounts the ext4 image on a loop device too).
for (const { engine, label, skip } of testEngines()) {
  describe(`on ${label}`, () => {
    describe.skipIf(skip)('/workspace on disk', () => {
      let sp: TestSandpit;
      beforeAll(async () => {
        sp = await startTestSandpit(onEngine(engine));
      });
      afterAll(async () => sp?.cleanup());

      it('is a file system of its own capped at the limit where the engine allows it', async () => {
        const capped = await canLoopMount(true);
        const { id } = await newSession(sp, { limits: { workspaceMb: 64 } });
        const r = await sp.sessions
          .session(id)
          .execute(
            [
              'import os',
              "fs_type = [l.split()[2] for l in open('/proc/mounts') if l.split()[1] == '/workspace'][0]",
              "st = os.statvfs('/workspace')",
              "(fs_type, st.f_blocks * st.f_frsize // 2**20, os.stat('/workspace').st_uid, sorted(os.listdir('/workspace')))",
            ].join('\n'),
          );
        expect(r.status).toBe('ok');
        const [fsType, totalMb, owner, entries] = JSON.parse(
          r.result!.replace(/'/g, '"').replace(/\(/g, '[').replace(/\)/g, ']'),
        ) as [string, number, number, string[]];
        expect(owner).toBe(10001);
        expect(entries).toEqual([]);
        if (capped) {
          expect(fsType).toBe('ext4');
          expect(totalMb).toBeGreaterThanOrEqual(64);
          expect(totalMb).toBeLessThan(64 + 16);
        } else {
          expect(fsType).not.toBe('tmpfs');
        }
      });

      it('answers a full workspace with ENOSPC, keeps the session, its variables and its other files, and never OOMs', async () => {
        const capped = await canLoopMount(true);
        expect(capped, 'this machine should give capped workspaces (local engine, root, loop devices)').toBe(true);
        // A memory limit well below the workspace: a workspace in memory would be killed for memory.
        const { id } = await newSession(sp, { limits: { workspaceMb: 192, memoryMb: 96 } });
        const session = sp.sessions.session(id);
        await session.execute("keep = 'variable'\nopen('/workspace/small.txt', 'w').write('small file')");
        const fill = await session.execute(
          [
            'import errno',
            'written = 0',
            'try:',
            "    with open('/workspace/fill.bin', 'wb') as f:",
            '        while True:',
            "            f.write(b'x' * (1 << 20))",
            '            written += 1',
            'except OSError as e:',
            '    err = (e.errno == errno.ENOSPC, e.strerror)',
            'err, written',
          ].join('\n'),
          { timeoutMs: 120_000 },
        );
        expect(fill.status).toBe('ok');
        expect(fill.stateLost).toBe(false);
        expect(fill.result).toMatch(/^\(\(True, 'No space left on device'\), (\d+)\)$/);
        const written = Number(/(\d+)\)$/.exec(fill.result!)![1]);
        expect(written).toBeGreaterThan(96); // more than the memory limit went to the workspace
        expect(written).toBeLessThanOrEqual(192);
        const after = await session.execute(
          "import os\nos.remove('/workspace/fill.bin')\n(keep, open('/workspace/small.txt').read())",
        );
        expect(after.result).toBe("('variable', 'small file')");
        // The same through write_file, into a smaller workspace: a clear refusal, and the session goes on.
        const { id: small } = await newSession(sp, { limits: { workspaceMb: 32 } });
        await expect(
          sp.sessions.session(small).writeFile('too-big.bin', Buffer.alloc(48 * 1024 * 1024, 1)),
        ).rejects.toMatchObject({
          code: 'LIMIT_EXCEEDED',
          message: expect.stringContaining('No space left on device') as unknown,
        });
        expect((await sp.sessions.session(small).execute('1 + 1')).result).toBe('2');
      });

      it('keeps its files when the sandbox is restarted (variables go)', async () => {
        const { id } = await newSession(sp, {});
        const session = sp.sessions.session(id);
        await session.execute(
          "v = 1\nimport os\nos.makedirs('/workspace/data', exist_ok=True)\nopen('/workspace/data/a.csv', 'w').write('x,y\\n1,2\\n')",
        );
        await session.restart();
        const r = await session.execute("('v' in globals(), open('/workspace/data/a.csv').read())");
        expect(r.result).toBe("(False, 'x,y\\n1,2\\n')");
      });

      it('gives every session a file system of its own: what one writes (files, the mode of its root) never reaches the next', async () => {
        const first = sp.sessions.session((await newSession(sp, { limits: { workspaceMb: 64 } })).id);
        const wrote = await first.execute(
          "import os\nos.makedirs('/workspace/planted/deep', exist_ok=True)\nopen('/workspace/planted/deep/x.py', 'w').write('print(1)')\nos.chmod('/workspace', 0o777)\nsorted(os.listdir('/workspace'))",
        );
        expect(wrote.result).toBe("['planted']");
        const second = sp.sessions.session((await newSession(sp, { limits: { workspaceMb: 64 } })).id);
        const seen = await second.execute("import os\n(sorted(os.listdir('/workspace')), oct(os.stat('/workspace').st_mode & 0o777), os.stat('/workspace').st_uid)");
        expect(seen.result).toBe("([], '0o755', 10001)");
      });
    });
  });
}
