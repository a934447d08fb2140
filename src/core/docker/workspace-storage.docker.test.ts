import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../shared/domain/limits';
import { silentLogger } from '../log';
import { currentIdentity, markInstanceAlive, markInstanceDead } from '../sandbox/instance-identity';
import { backingFile, detachLoopsUnder, loopsUnder } from '../../test-support/loop-devices';
import { LoopWorkspaces, canLoopMount, reapWorkspaceImages } from './workspace-storage';

const LIMITS = { ...DEFAULT_LIMITS, workspaceMb: 64 };
const loops = await canLoopMount(true);

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe.skipIf(!loops)(`capped workspace disks made ahead${loops ? '' : ' — SKIPPED: this machine cannot make loop devices (needs Linux, root, /dev/loop-control, e2fsprogs)'}`, () => {
  let home: string;
  let root: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'sandpit-workspaces-'));
    // where Sandpit keeps them: <data folder>/workspaces/<instance>/
    root = join(home, 'workspaces');
    await mkdir(root);
  });
  afterEach(async () => {
    // A test that failed half-way leaves no loop device behind.
    await detachLoopsUnder(home);
    await rm(home, { recursive: true, force: true });
  });

  it("gives the first sandbox the disk made ahead, renamed to the session's and attached; the next one gets a disk of its own", async () => {
    const identity = currentIdentity();
    markInstanceAlive(identity.instanceId);
    const storage = new LoopWorkspaces(root, identity, silentLogger);
    try {
      storage.prewarm(LIMITS.workspaceMb);
      const dir = join(root, identity.instanceId);
      await until(async () => (await readdir(dir).catch(() => [])).some((f) => f.startsWith('spare-')), 'the disk made ahead');
      const first = await storage.prepare('ses-first1', LIMITS);
      const second = await storage.prepare('ses-second2', LIMITS);
      expect(first.disk?.image).toBe(join(dir, 'ses-first1.img'));
      // the device follows its file: the kernel names the session's disk as its backing file
      expect(await backingFile(first.disk?.device ?? '')).toBe(join(dir, 'ses-first1.img'));
      expect(await backingFile(second.disk?.device ?? '')).toBe(join(dir, 'ses-second2.img'));
      expect(first.disk?.device).not.toBe(second.disk?.device);
      expect(first.driverOpts).toMatchObject({ type: 'ext4', device: first.disk?.device });
      expect((await readdir(dir)).filter((f) => f.endsWith('.img')).sort()).toEqual(['ses-first1.img', 'ses-second2.img']);
      await first.release();
      await second.release();
      expect(await loopsUnder(root)).toEqual([]);
      expect((await readdir(dir)).filter((f) => f.endsWith('.img'))).toEqual([]);
    } finally {
      await storage.close();
      markInstanceDead(identity.instanceId);
    }
  });

  it('detaches and removes a disk made ahead that no sandbox took when Sandpit closes', async () => {
    const identity = currentIdentity();
    markInstanceAlive(identity.instanceId);
    const storage = new LoopWorkspaces(root, identity, silentLogger);
    storage.prewarm(LIMITS.workspaceMb);
    await until(async () => (await loopsUnder(root)).length === 1, 'the disk made ahead to be attached');
    await storage.close();
    markInstanceDead(identity.instanceId);
    expect(await loopsUnder(root)).toEqual([]);
    expect((await readdir(join(root, identity.instanceId))).filter((f) => f.endsWith('.img') || f.endsWith('.ext4'))).toEqual([]);
  });

  it("the reaper detaches and removes a dead instance's disk made ahead (it crashed before closing)", async () => {
    const dead = currentIdentity();
    const storage = new LoopWorkspaces(root, dead, silentLogger);
    storage.prewarm(LIMITS.workspaceMb);
    await until(async () => (await loopsUnder(root)).length === 1, 'the disk made ahead to be attached');
    // `dead` was never marked alive: the same process, an instance that is gone.
    const self = currentIdentity();
    markInstanceAlive(self.instanceId);
    try {
      const cleaned = await reapWorkspaceImages(root, self, silentLogger);
      expect(cleaned.some((c) => c.startsWith('/dev/loop'))).toBe(true);
      expect(await loopsUnder(root)).toEqual([]);
      expect(await readdir(root)).toEqual([]);
    } finally {
      markInstanceDead(self.instanceId);
    }
  });
});
