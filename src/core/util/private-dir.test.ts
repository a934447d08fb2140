import { chmod, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensurePrivateDir } from './private-dir';

describe('ensurePrivateDir', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'sandpit-private-'));
  });
  afterEach(async () => rm(root, { recursive: true, force: true }));

  it('makes a directory, and accepts one that is ours and not writable by others', async () => {
    await ensurePrivateDir(join(root, 'a', 'b'));
    await ensurePrivateDir(join(root, 'a', 'b'));
  });

  it('refuses a symlink planted in its place', async () => {
    await mkdir(join(root, 'elsewhere'));
    await symlink(join(root, 'elsewhere'), join(root, 'run'));
    await expect(ensurePrivateDir(join(root, 'run'))).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('refuses a directory others may write in', async () => {
    await mkdir(join(root, 'open'));
    await chmod(join(root, 'open'), 0o777);
    await expect(ensurePrivateDir(join(root, 'open'))).rejects.toMatchObject({ code: 'CONFLICT' });
  });
});
