import { describe, expect, it } from 'vitest';
import { imageBytes, plainWorkspaces } from './workspace-storage';

describe('workspace storage', () => {
  it('sizes an ext4 image so that at least the cap is free in it', () => {
    // Measured free space of such images (mkfs.ext4 -m 0 -J size=4): 54.7 of 64, 499 of 512, 2006 of 2048 MiB.
    for (const mb of [64, 512, 2048]) {
      const free = (imageBytes(mb) / 1024 / 1024 - 9) * 0.985;
      expect(free, `${mb} MiB`).toBeGreaterThanOrEqual(mb);
    }
  });

  it('gives a plain volume nothing to undo', async () => {
    const volume = await plainWorkspaces.prepare('ses-1', { memoryMb: 1, cpus: 1, pids: 1, tmpMb: 1, workspaceMb: 1, outputBytes: 1, timeoutMs: 1 });
    expect(volume.driverOpts).toBeUndefined();
    await expect(volume.release()).resolves.toBeUndefined();
    expect(plainWorkspaces.kind).toBe('disk');
  });
});
