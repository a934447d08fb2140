import { mkdtempSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { homeLockPath, lockHome } from './home-lock';
import type { HomeHolder } from './home-lock';

function holder(pid: number, instanceId: string, command = 'sandpit mcp'): HomeHolder {
  return { host: 'here', pid, processStart: '100', instanceId, command, startedAt: '2026-12-02T10:00:00.000Z' };
}

describe('the data folder lock', () => {
  let home = '';
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('refuses a second holder while the first lives, naming its pid and command; free again once released', async () => {
    home = mkdtempSync(join(tmpdir(), 'sandpit-lock-'));
    const first = await lockHome(home, holder(4242, 'a'), () => false);
    const refused = lockHome(home, holder(4343, 'b', 'sandpit serve'), () => false);
    await expect(refused).rejects.toMatchObject({ code: 'CONFLICT', details: { reason: 'data-folder-in-use', pid: 4242, command: 'sandpit mcp' } });
    await expect(refused).rejects.toThrow(/process 4242 \(sandpit mcp\)/);
    await first.release();
    const second = await lockHome(home, holder(4343, 'b'), () => false);
    expect(JSON.parse(await readFile(homeLockPath(home), 'utf8'))).toMatchObject({ pid: 4343, instanceId: 'b' });
    await second.release();
  });

  it('takes over a lock whose holder is dead (killed, or its pid now another process), and a file that is no lock at all', async () => {
    home = mkdtempSync(join(tmpdir(), 'sandpit-lock-'));
    await writeFile(homeLockPath(home), JSON.stringify(holder(999_999, 'gone')));
    const judged: number[] = [];
    const lock = await lockHome(home, holder(5, 'new'), (h) => {
      judged.push(h.pid);
      return h.pid === 999_999;
    });
    expect(judged).toEqual([999_999]);
    expect(JSON.parse(await readFile(homeLockPath(home), 'utf8'))).toMatchObject({ instanceId: 'new' });
    await lock.release();

    await writeFile(homeLockPath(home), 'not json at all');
    const again = await lockHome(home, holder(6, 'newer'), () => false);
    expect(JSON.parse(await readFile(homeLockPath(home), 'utf8'))).toMatchObject({ instanceId: 'newer' });
    await again.release();
  });

  it('a start while the holder shuts down waits for its release, and refuses a holder that never lets go', async () => {
    home = mkdtempSync(join(tmpdir(), 'sandpit-lock-'));
    const first = await lockHome(home, holder(11, 'closing'), () => false);
    await first.closing();
    expect(JSON.parse(await readFile(homeLockPath(home), 'utf8'))).toMatchObject({ instanceId: 'closing', closing: true });
    const waiting = lockHome(home, holder(12, 'next'), () => false, 10_000);
    let taken = false;
    void waiting.then(() => {
      taken = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(taken).toBe(false);
    await first.release();
    const next = await waiting;
    expect(JSON.parse(await readFile(homeLockPath(home), 'utf8'))).toMatchObject({ instanceId: 'next' });
    await next.closing();
    await expect(lockHome(home, holder(13, 'late'), () => false, 300)).rejects.toMatchObject({ details: { reason: 'data-folder-in-use', pid: 12 } });
    await next.release();
  });

  it('a release never removes a lock another core took since', async () => {
    home = mkdtempSync(join(tmpdir(), 'sandpit-lock-'));
    const stale = await lockHome(home, holder(7, 'old'), () => false);
    const other = await lockHome(home, holder(8, 'other'), (h) => h.instanceId === 'old');
    await stale.release();
    expect(JSON.parse(await readFile(homeLockPath(home), 'utf8'))).toMatchObject({ instanceId: 'other' });
    await other.release();
    await expect(readFile(homeLockPath(home), 'utf8')).rejects.toThrow();
  });
});
