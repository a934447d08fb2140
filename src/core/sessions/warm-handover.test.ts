import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../shared/domain/limits';
import { silentLogger } from '../log';
import { currentIdentity, markInstanceAlive, markInstanceDead } from '../sandbox/instance-identity';
import { removeAllBut } from '../util/remove-all-but';
import { WarmHandOver, isHandedOver } from './warm-handover';
import type { HandedOverSandbox } from './warm-handover';

function sandbox(sessionId: string): HandedOverSandbox {
  return {
    sessionId,
    language: 'python',
    image: 'sandpit/python:abc',
    limits: DEFAULT_LIMITS,
    isolation: 'standard',
    containerId: 'a'.repeat(64),
    runtime: 'runc',
    agentDir: `/run/x/${sessionId}`,
  };
}

describe('the hand-over of warm sandboxes between cores of a data folder', () => {
  let root: string;
  let home: string;
  let runRoot: string;
  const self = currentIdentity();

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'sandpit-handover-unit-'));
    home = join(root, 'home');
    runRoot = join(root, 'run');
    await mkdir(home);
    await mkdir(runRoot);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('spares what is left while it waits for the next core, and gives it to that core once', async () => {
    const store = new WarmHandOver(home, runRoot, silentLogger);
    expect(await store.waiting()).toBe(false);
    await store.leave([sandbox('ses-a1'), sandbox('ses-b2')], Date.now() + 60_000);
    // the next core's first sandbox waits for what was left (a pool it fills starts nothing)
    expect(await store.waiting()).toBe(true);
    expect(await isHandedOver(runRoot, 'ses-a1', self)).toBe(true);
    expect(await isHandedOver(runRoot, 'ses-c3', self)).toBe(false);
    const taken = await store.take();
    expect(taken.sandboxes.map((s) => s.sessionId)).toEqual(['ses-a1', 'ses-b2']);
    // still spared while the next core takes them over (a reaper may run meanwhile)
    expect(await isHandedOver(runRoot, 'ses-a1', self)).toBe(true);
    await taken.done();
    expect(await store.waiting()).toBe(false);
    expect((await store.take()).sandboxes).toEqual([]);
    // once the record is gone, an unheld marker spares nothing
    expect(await isHandedOver(runRoot, 'ses-a1', self)).toBe(false);
  });

  it('a held sandbox is spared while its holder lives, and not once it is dead', async () => {
    const store = new WarmHandOver(home, runRoot, silentLogger);
    await store.leave([sandbox('ses-a1')], Date.now() + 60_000);
    const { done } = await store.take();
    const holder = currentIdentity();
    markInstanceAlive(holder.instanceId);
    await store.hold('ses-a1', holder);
    await done();
    expect(await isHandedOver(runRoot, 'ses-a1', self)).toBe(true);
    markInstanceDead(holder.instanceId);
    expect(await isHandedOver(runRoot, 'ses-a1', self)).toBe(false);
    await store.forget('ses-a1');
    expect(await readdir(join(runRoot, 'kept', 'handover'))).toEqual([]);
  });

  it('past its time, nothing is taken or spared', async () => {
    const store = new WarmHandOver(home, runRoot, silentLogger);
    await store.leave([sandbox('ses-a1')], Date.now() + 50);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(await isHandedOver(runRoot, 'ses-a1', self)).toBe(false);
    expect((await store.take()).sandboxes).toEqual([]);
    expect(await readdir(home)).toEqual([]);
  });

  it('a record edited by hand that the schema refuses is taken as nothing, and removed', async () => {
    const store = new WarmHandOver(home, runRoot, silentLogger);
    await store.leave([sandbox('ses-a1')], Date.now() + 60_000);
    const path = join(home, 'warm-handover.json');
    const record = JSON.parse(await readFile(path, 'utf8')) as { sandboxes: Array<Record<string, unknown>> };
    record.sandboxes[0]!.sessionId = '../../etc';
    await writeFile(path, JSON.stringify(record));
    expect((await store.take()).sandboxes).toEqual([]);
    expect(await readdir(home)).toEqual([]);
    await writeFile(path, 'not json');
    expect((await store.take()).sandboxes).toEqual([]);
  });

  it('sweeping removes the markers that spare nothing any more, and keeps the others', async () => {
    const store = new WarmHandOver(home, runRoot, silentLogger);
    await store.leave([sandbox('ses-a1')], Date.now() + 60_000);
    const other = new WarmHandOver(join(root, 'gone-home'), runRoot, silentLogger);
    await mkdir(join(root, 'gone-home'));
    await other.leave([sandbox('ses-b2')], Date.now() + 60_000);
    await rm(join(root, 'gone-home'), { recursive: true });
    await store.sweep(self);
    expect(await readdir(join(runRoot, 'kept', 'handover'))).toEqual(['ses-a1.json']);
  });

  it('a marker naming a session id that is not one is never read', async () => {
    expect(await isHandedOver(runRoot, '../kept/ses-a1', self)).toBe(false);
  });
});

describe('removeAllBut with entries kept only beside others', () => {
  it('keeps the owner file while a kept entry stays, and removes everything when none does', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sandpit-remove-all-but-'));
    try {
      for (const name of ['owner.json', 'ses-kept', 'ses-gone']) await writeFile(join(dir, name), name);
      await removeAllBut(dir, async (name) => name === 'ses-kept', ['owner.json']);
      expect((await readdir(dir)).sort()).toEqual(['owner.json', 'ses-kept']);
      await removeAllBut(dir, async () => false, ['owner.json']);
      await expect(readdir(dir)).rejects.toThrow();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
