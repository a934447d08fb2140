// Warm sandboxes handed over between cores of one data folder (issue 20, the first call): a core that quits leaves
// its ready warm sandboxes running for the next core, which takes them over instead of starting its own. The record
// is a file in the data folder, so it is input: a tampered one names nothing that is then touched, and a stale one
// is reaped.
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LABEL } from '../docker/labels';
import { pollUntil } from '../util/with-timeout';
import { containerExists, handedOver, testDocker } from '../../test-support/docker';
import { onEngine, testEngines } from '../../test-support/engines';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { newSession } from '../../test-support/sessions';

const HANDOVER_FILE = 'warm-handover.json';

function pythonReady(sp: TestSandpit): number {
  return sp.sessions.poolStatus().find((p) => p.key.startsWith('["python",'))?.ready ?? 0;
}

/** A core on `home` with a warm pool of one per language, leaving its warm sandboxes for `handOverMs`. */
async function core(home: string, handOverMs: number): Promise<TestSandpit> {
  return startTestSandpit({ home, poolSize: 1, handOverMs });
}

/** A core that warms its pools, then quits: what it left, from its record. */
async function leaveWarm(home: string, handOverMs = 60_000): Promise<Array<{ sessionId: string; containerId: string; language: string; agentDir: string; workspace?: { image: string } }>> {
  const first = await core(home, handOverMs);
  // the python pool, and at least two more (javascript, bash and the others whose images the tests built)
  await pollUntil(() => (pythonReady(first) >= 1 && first.sessions.poolStatus().filter((p) => p.ready >= 1).length >= 3 ? true : undefined), 90_000, 'the pools to fill');
  await first.dispose();
  return (JSON.parse(await readFile(join(home, HANDOVER_FILE), 'utf8')) as { sandboxes: never[] }).sandboxes;
}

describe('warm sandboxes handed over to the next core of the data folder', () => {
  const docker = testDocker();
  let home: string;
  let next: TestSandpit | undefined;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'sandpit-handover-'));
  });
  afterAll(async () => {
    await next?.cleanup();
    await rm(home, { recursive: true, force: true });
  });

  it('a core that quits leaves its ready warm sandboxes running; the next core answers from one of them, fresh, and removes them when it quits without leaving any', async () => {
    const left = await leaveWarm(home);
    const python = left.filter((s) => s.language === 'python');
    expect(python.length).toBeGreaterThanOrEqual(1);
    for (const s of left) expect((await docker.inspectContainer(s.containerId)).running).toBe(true);

    next = await core(home, 0);
    const session = await newSession(next, {});
    // The first session of the next core is one of the sandboxes the last one left: nothing was started for it.
    expect(python.map((s) => s.sessionId)).toContain(session.id);
    expect(session.fromPool).toBe(true);
    const run = next.sessions.session(session.id);
    expect((await run.execute('1 + 1')).result).toBe('2');
    expect((await run.execute("'x' in globals()")).result).toBe('False');
    // It would have ended by itself had no core taken it over in time (its agent's SANDPIT_UNCONNECTED_EXIT_S).
    expect((await run.execute("import os\nos.environ.get('SANDPIT_UNCONNECTED_EXIT_S')")).result).toBe("'60'");
    // Taken: the record is gone, so no later core takes them again.
    await pollUntil(async () => ((await readdir(home)).includes(HANDOVER_FILE) ? undefined : true), 10_000, 'the record to be taken');

    await next.dispose();
    next = undefined;
    // Quitting without leaving any (handOverMs 0): every sandbox it took over is removed with the others.
    for (const s of left) expect(await containerExists(s.containerId)).toBe(false);
    expect(await handedOver(home)).toEqual([]);
  });

  it('a tampered record names nothing that is then touched: a container Sandpit did not make, an agent folder or a disk elsewhere', async () => {
    const left = await leaveWarm(home);
    expect(left.length).toBeGreaterThanOrEqual(3);
    const victimDir = await mkdtemp(join(tmpdir(), 'sandpit-handover-victim-'));
    const victim = join(victimDir, 'precious.img');
    await writeFile(victim, 'a file of this computer');
    const foreignId = await docker.createContainer({ image: inject('images').python!, cmd: ['sleep', '600'], env: {}, labels: {}, user: '10001:10001', workingDir: '/', openStdin: false, hostConfig: { NetworkMode: 'none' } });
    try {
      const path = join(home, HANDOVER_FILE);
      const record = JSON.parse(await readFile(path, 'utf8')) as { sandboxes: Array<Record<string, unknown>> };
      // The python one names the foreign container: a new python session would run in it if it were taken over.
      const foreign = record.sandboxes.find((s) => s.language === 'python')!;
      const [folder, disk] = record.sandboxes.filter((s) => s !== foreign) as [Record<string, unknown>, Record<string, unknown>];
      foreign.containerId = foreignId;
      folder.agentDir = victimDir;
      disk.workspace = { image: victim, device: '/dev/loop0' };
      await writeFile(path, JSON.stringify(record));

      next = await core(home, 0);
      await pollUntil(async () => ((await readdir(home)).includes(HANDOVER_FILE) ? undefined : true), 30_000, 'the record to be read');
      const session = await newSession(next, {});
      expect([foreign.sessionId, folder.sessionId, disk.sessionId]).not.toContain(session.id);
      // What the record named and Sandpit did not make is untouched.
      expect(await containerExists(foreignId)).toBe(true);
      expect(await readFile(victim, 'utf8')).toBe('a file of this computer');
      expect((await readdir(victimDir)).sort()).toEqual(['precious.img']);
      // The sandboxes whose records were tampered with are not this core's: its reaper removes them (their maker is gone).
      await next.dispose();
      next = await core(home, 0);
      for (const s of [foreign, folder, disk]) {
        await pollUntil(async () => ((await docker.listContainers({ [LABEL.session]: String(s.sessionId) })).length === 0 ? true : undefined), 30_000, `the leftover ${String(s.sessionId)} to be reaped`);
      }
      expect(await containerExists(foreignId)).toBe(true);
    } finally {
      await docker.removeContainer(foreignId).catch(() => undefined);
      await rm(victimDir, { recursive: true, force: true });
      await next?.cleanup();
      next = undefined;
      home = await mkdtemp(join(tmpdir(), 'sandpit-handover-'));
    }
  });

  it('a hand-over past its time is not taken over: its sandboxes ended by themselves, and are reaped as leftovers', async () => {
    const left = await leaveWarm(home, 2_000);
    // past its time: every agent ended once no core had been connected for 2 s (their containers stopped)
    for (const s of left) await pollUntil(async () => ((await docker.inspectContainer(s.containerId)).running ? undefined : true), 20_000, `the left sandbox ${s.sessionId} to end by itself`);
    next = await core(home, 0);
    const session = await newSession(next, {});
    expect(left.map((s) => s.sessionId)).not.toContain(session.id);
    for (const s of left) {
      await pollUntil(async () => ((await containerExists(s.containerId)) ? undefined : true), 30_000, `the stale sandbox ${s.sessionId} to be reaped`);
    }
  });
});

// The same hand-over on Podman: its containers are read back the way Podman reports them (the default capabilities
// dropped by name, the CPU limit as a quota), and a sandbox Sandpit made there passes that check.
for (const { engine, label, skip } of testEngines().filter((e) => e.engine === 'podman')) {
  describe(`warm sandboxes handed over on ${label}`, () => {
    it.skipIf(skip)('the next core on the data folder takes over the Python sandbox the last one left there, and runs in it', async () => {
      const home = await mkdtemp(join(tmpdir(), 'sandpit-handover-podman-'));
      let second: TestSandpit | undefined;
      try {
        const first = await startTestSandpit({ home, poolSize: 1, handOverMs: 60_000, ...onEngine(engine) });
        await pollUntil(() => (pythonReady(first) >= 1 ? true : undefined), 90_000, 'the python pool to fill on Podman');
        await first.dispose();
        const left = (JSON.parse(await readFile(join(home, HANDOVER_FILE), 'utf8')) as { sandboxes: Array<{ sessionId: string; language: string }> }).sandboxes;
        const python = left.filter((s) => s.language === 'python').map((s) => s.sessionId);
        expect(python).toHaveLength(1);

        second = await startTestSandpit({ home, poolSize: 1, handOverMs: 0, ...onEngine(engine) });
        const session = await newSession(second, {});
        expect(python).toContain(session.id);
        expect(session.fromPool).toBe(true);
        const run = second.sessions.session(session.id);
        expect((await run.execute('1 + 1')).result).toBe('2');
        expect((await run.execute("import os\nos.getuid()")).result).toBe('10001');
      } finally {
        await second?.cleanup();
        await rm(home, { recursive: true, force: true });
      }
    });
  });
}
