// Sandpit without root on Linux cannot give its copy to the sandbox user: the copy keeps the person's modes
// exactly (a group-writable folder stays group-writable, whatever the umask) and their group, so the sandbox,
// which joins the folder's group, changes what the person's permissions let it (a folder it could not change is
// refused when shared: review-backend-choice.test.ts). Run as another user than root, in a child process.
import { spawn } from 'node:child_process';
import { chmod, chown, lstat, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = process.getuid?.() === 0;
const USER = 1500;

describe('a copy layer made without root', () => {
  let root: string | undefined;
  afterEach(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it.skipIf(!ROOT)(
    "(needs root to run a child as another user) keeps the person's group and exact modes",
    async () => {
      root = await mkdtemp(join(tmpdir(), 'sandpit-copy-nonroot-'));
      await chmod(root, 0o755);
      const person = join(root, 'person');
      const data = join(root, 'data');
      await mkdir(join(person, 'sub'), { recursive: true });
      await writeFile(join(person, 'a.txt'), 'a\n');
      await writeFile(join(person, 'sub', 'b.txt'), 'b\n');
      for (const [path, mode] of [
        [person, 0o2775],
        [join(person, 'sub'), 0o2775],
        [join(person, 'a.txt'), 0o664],
        [join(person, 'sub', 'b.txt'), 0o664],
      ] as const) {
        await chown(path, 1400, USER);
        await chmod(path, mode);
      }
      await mkdir(data, { mode: 0o700 });
      await chown(data, USER, USER);
      const child = spawn(
        '/usr/bin/node',
        ['--import', 'tsx', join(import.meta.dirname, '../../../test-support/review-copy-child.mts'), data, person],
        {
          uid: USER,
          gid: USER,
          cwd: process.cwd(),
          env: { PATH: '/usr/bin:/bin', HOME: root },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(err).toBe('');
      expect(code).toBe(0);
      const layer = JSON.parse(out) as { layerPath: string; backend: string; reason: string };
      expect(layer.backend).toBe('copy');
      const seen = async (rel: string): Promise<string> => {
        const info = await lstat(join(layer.layerPath, rel));
        return `${info.uid}:${info.gid} ${(info.mode & 0o7777).toString(8)}`;
      };
      expect(await seen('.')).toBe(`${USER}:${USER} 2775`);
      expect(await seen('sub')).toBe(`${USER}:${USER} 2775`);
      expect(await seen('a.txt')).toBe(`${USER}:${USER} 664`);
      expect(await seen('sub/b.txt')).toBe(`${USER}:${USER} 664`);
    },
    60_000,
  );
});
