import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  instanceFilePath,
  isProcessAlive,
  readInstanceFile,
  removeInstanceFile,
  removeInstanceFileSync,
  writeInstanceFile,
} from './instance-file';
import type { InstanceInfo } from './instance-file';

const INFO: InstanceInfo = { url: 'http://127.0.0.1:7411', pid: process.pid, startedAt: '2026-11-01T10:00:00.000Z' };

describe('instance file', () => {
  let home: string;

  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'sandpit-instance-'));
  });

  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('writes 0600 JSON that reads back, and removes it', async () => {
    await writeInstanceFile(home, INFO);
    expect(JSON.parse(await readFile(instanceFilePath(home), 'utf8'))).toEqual(INFO);
    if (process.platform !== 'win32') expect((await stat(instanceFilePath(home))).mode & 0o777).toBe(0o600);
    expect(await readInstanceFile(home)).toEqual(INFO);
    await removeInstanceFile(home);
    expect(await readInstanceFile(home)).toBeUndefined();
  });

  it('leaves a file that belongs to another process', async () => {
    await writeInstanceFile(home, { ...INFO, pid: process.pid + 1 });
    await removeInstanceFile(home);
    removeInstanceFileSync(home);
    expect(await readInstanceFile(home)).toMatchObject({ pid: process.pid + 1 });
    await removeInstanceFile(home, process.pid + 1);
    expect(await readInstanceFile(home)).toBeUndefined();
  });

  it('removes its own file synchronously (for the exit handler)', async () => {
    await writeInstanceFile(home, INFO);
    removeInstanceFileSync(home);
    expect(await readInstanceFile(home)).toBeUndefined();
  });

  it('reads nothing from a missing, broken or foreign-URL file, and never writes a non-loopback URL', async () => {
    expect(await readInstanceFile(home)).toBeUndefined();
    await writeFile(instanceFilePath(home), '{oops');
    expect(await readInstanceFile(home)).toBeUndefined();
    await writeFile(instanceFilePath(home), JSON.stringify({ ...INFO, url: 'http://evil.example:7411' }));
    expect(await readInstanceFile(home)).toBeUndefined();
    await expect(writeInstanceFile(home, { ...INFO, url: 'http://10.0.0.1:7411' })).rejects.toThrow();
  });

  it('tells whether a process is alive', () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    expect(isProcessAlive(2 ** 22 + 12_345)).toBe(false);
  });
});
