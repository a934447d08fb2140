import { afterEach, describe, expect, it, vi } from 'vitest';
import { SandpitError } from '../../shared/api/errors';
import { MemoryBackend } from '../../test-support/memory-backend';
import { EventBus } from '../events/event-bus';
import { defaultConfig } from '../config';
import { EngineMonitor } from './engine-monitor';
import type { ArtifactStore } from '../files/artifact-store';
import { silentLogger } from '../log';
import { pollUntil } from '../util/with-timeout';
import { SessionManager } from './session-manager';
import type { CreateSessionInput } from './session-manager';

const PYTHON: CreateSessionInput = { language: 'python', image: 'sandpit-fake:1' };

/** A manager over the in-memory engine (its agents answer at once; no warm pool unless asked), with its engine up. */
async function memoryManager(
  maxSessions = 32,
  more: { poolSize?: number; idleTtlMs?: number; sandboxRemoved?: (sessionId: string) => void } = {},
): Promise<{ manager: SessionManager; backend: MemoryBackend; bus: EventBus }> {
  const backend = new MemoryBackend('inst-test');
  const engine = new EngineMonitor(backend, silentLogger);
  await engine.check();
  const bus = new EventBus();
  const manager = new SessionManager({
    config: defaultConfig({ channel: 'attach', poolSize: more.poolSize ?? 0, maxSessions, startTimeoutMs: 5_000, ...(more.idleTtlMs ? { idleTtlMs: more.idleTtlMs } : {}) }),
    backend,
    engine,
    bus,
    artifacts: {} as ArtifactStore,
    openNetwork: 'memory-open',
    installSettings: () => {
      throw new Error('no installs in these tests');
    },
    ...(more.sandboxRemoved ? { sandboxRemoved: more.sandboxRemoved } : {}),
    log: silentLogger,
  });
  return { manager, backend, bus };
}

describe('SessionManager (in-memory engine)', () => {
  it('keeps one warm pool for per-sandbox variables and reports every sandbox removed for good, warm ones never used included', async () => {
    const issued: string[] = [];
    const removed: string[] = [];
    const { manager } = await memoryManager(32, { poolSize: 2, sandboxRemoved: (id) => removed.push(id) });
    // Each call returns something new (as a credential is): it must not make a new pool each time.
    const input: CreateSessionInput = {
      ...PYTHON,
      containerEnv: (id) => {
        issued.push(id);
        return { SECRET: `${id}-${issued.length}` };
      },
    };
    const a = await manager.create(input);
    await pollUntil(() => (manager.poolStatus()[0]?.ready === 2 ? true : undefined), 5_000, 'pool filled');
    const b = await manager.create(input);
    expect(b.info().fromPool).toBe(true);
    expect(manager.poolStatus()).toHaveLength(1);
    expect(issued).toContain(a.id);
    expect(issued).toContain(b.id);
    expect(new Set(issued).size).toBe(issued.length);
    await manager.stop(a.id);
    expect(removed).toEqual([a.id]);
    await manager.dispose();
    // b and the warm sandboxes nobody claimed: every sandbox that got variables was reported once.
    expect([...removed].sort()).toEqual([...issued].sort());
  });

  it('makes no pool once disposed: a warm-up that comes late starts nothing that would be left running', async () => {
    const { manager, backend } = await memoryManager(32, { poolSize: 1 });
    await manager.dispose();
    await manager.warmUp([{ language: 'python', image: 'sandpit-fake:1', isolation: 'standard' }]);
    expect(manager.poolStatus()).toEqual([]);
    expect(backend.sandboxes.size).toBe(0);
  });

  it('a create while the pool is starting its first sandbox takes that one, starting no second one', async () => {
    const { manager, backend } = await memoryManager(32, { poolSize: 1 });
    const warming = manager.warmUp([{ language: 'python', image: 'sandpit-fake:1', isolation: 'standard' }]);
    const session = await manager.create({ ...PYTHON, isolation: 'standard' });
    expect(session.info()).toMatchObject({ fromPool: true, state: 'ready' });
    await warming;
    await pollUntil(() => (manager.poolStatus()[0]?.ready === 1 ? true : undefined), 5_000, 'the pool refilled');
    // One for the session, one refilled: never a cold start beside the warm one.
    expect(backend.sandboxes.size).toBe(2);
    await manager.dispose();
    expect(backend.sandboxes.size).toBe(0);
  });

  it('never exceeds maxSessions when creates run at once', async () => {
    const { manager } = await memoryManager(2);
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => manager.create(PYTHON)));
    const created = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(created).toHaveLength(2);
    expect(refused).toHaveLength(3);
    for (const r of refused) expect(r.reason).toMatchObject({ code: 'LIMIT_EXCEEDED' });
    expect(manager.list()).toHaveLength(2);
    await manager.dispose();
  });

  it('counts a create that failed to start no more: the next one may take its place', async () => {
    const { manager, backend } = await memoryManager(1);
    backend.override.start = () => Promise.reject(new SandpitError('INTERNAL', 'no start'));
    await expect(manager.create(PYTHON)).rejects.toThrow('no start');
    delete backend.override.start;
    await expect(manager.create(PYTHON).then((session) => session.info())).resolves.toMatchObject({ state: 'ready' });
    await manager.dispose();
  });

  it('refuses to create a session once disposed, and removes one whose sandbox was being made during dispose', async () => {
    const { manager, backend } = await memoryManager();
    let making!: () => void;
    const makingOnce = new Promise<void>((resolve) => (making = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const create = backend.create.bind(backend);
    // The engine is still making the sandbox when Sandpit starts to quit; it comes up during the dispose.
    backend.create = async (spec) => {
      making();
      await held;
      return create(spec);
    };
    const racing = manager.create(PYTHON);
    await makingOnce;
    await manager.dispose();
    release();
    await expect(racing).rejects.toThrow(/shutting down/);
    expect(backend.sandboxes.size).toBe(0);
    await expect(manager.create(PYTHON)).rejects.toThrow(/shutting down/);
  });

  it('leaves no sandbox when a session is stopped while the engine is still making its sandbox', async () => {
    const { manager, backend } = await memoryManager();
    let making!: () => void;
    const makingOnce = new Promise<void>((resolve) => (making = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const create = backend.create.bind(backend);
    backend.create = async (spec) => {
      making();
      await held;
      return create(spec);
    };
    const racing = manager.create(PYTHON);
    await makingOnce;
    const [starting] = manager.list();
    await manager.stop(starting!.id);
    release();
    await expect(racing).rejects.toThrow('The session was stopped while its sandbox was being made.');
    expect(backend.sandboxes.size).toBe(0);
    expect(manager.list()).toEqual([]);
    await manager.dispose();
  });

  it('removes a sandbox whose start was under way when the session was stopped during dispose', async () => {
    const { manager, backend } = await memoryManager();
    let starting!: () => void;
    const startingOnce = new Promise<void>((resolve) => (starting = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    backend.override.start = async (timeoutMs) => {
      const sandbox = [...backend.sandboxes.values()][0]!;
      starting();
      await held;
      delete backend.override.start;
      return sandbox.start(timeoutMs);
    };
    const racing = manager.create(PYTHON);
    await startingOnce;
    await manager.dispose();
    release();
    await expect(racing).rejects.toThrow(/shutting down/);
    expect(backend.sandboxes.size).toBe(0);
  });

  it('marks a session failed (not restarting for ever) when its restart fails, and rethrows', async () => {
    const { manager, backend, bus } = await memoryManager();
    const { id } = await manager.create(PYTHON);
    const states: string[] = [];
    bus.on('session.updated', (info) => states.push(info.state));
    backend.override.start = () => Promise.reject(new SandpitError('DOCKER_UNAVAILABLE', 'the engine went away'));
    await expect(manager.session(id).restart()).rejects.toMatchObject({ code: 'DOCKER_UNAVAILABLE' });
    expect(manager.session(id).state).toBe('failed');
    expect(states).toEqual(['restarting', 'failed']);
    delete backend.override.start;
    await expect(manager.session(id).restart()).resolves.toMatchObject({ state: 'ready' });
    await manager.dispose();
  });
});

describe('pausing and resuming (in-memory engine)', () => {
  it('pauses only an idle session, queues what comes meanwhile in order, and resumes once for all of it', async () => {
    const { manager, bus } = await memoryManager();
    const session = await manager.create(PYTHON);
    const seen: string[] = [];
    bus.on('session.updated', (info) => {
      if (info.id === session.id && seen.at(-1) !== info.state) seen.push(info.state);
    });
    bus.on('session.paused', (e) => seen.push(`event:paused:${e.reason}`));
    bus.on('session.resumed', () => seen.push('event:resumed'));
    bus.on('execution.started', (e) => seen.push(`run:${e.code}`));

    expect(await session.pause('idle')).toBe(true);
    expect(session.state).toBe('paused');
    expect(session.runtime.connected).toBe(false);
    // Two calls at once on a paused session: one resume, then both, in the order they came.
    const [a, b] = await Promise.all([session.execute('1'), session.execute('2')]);
    expect([a.status, a.stateLost, b.status, b.stateLost]).toEqual(['ok', true, 'ok', false]);
    expect(a.message).toMatch(/^This session was paused after 30 minutes without use/);
    expect(b.message).toBeUndefined();
    expect(seen).toEqual(['paused', 'event:paused:idle', 'restarting', 'ready', 'event:resumed', 'busy', 'run:1', 'ready', 'busy', 'run:2', 'ready']);
    await manager.dispose();
  });

  it('does not pause a session with work queued behind, and a stop on a paused session removes it', async () => {
    const { manager, backend } = await memoryManager();
    const session = await manager.create(PYTHON);
    const run = session.execute('1');
    const pausing = session.pause('idle');
    const later = session.execute('2');
    await run;
    expect(await pausing).toBe(false);
    await later;
    expect(session.state).toBe('ready');

    expect(await session.pause('idle')).toBe(true);
    await manager.stop(session.id);
    expect(session.state).toBe('stopped');
    expect(backend.sandboxes.size).toBe(0);
    await manager.dispose();
  });
});

describe('resuming while the engine is gone (in-memory engine)', () => {
  it('fails the call with DOCKER_UNAVAILABLE, starts the session once the engine is back, and the first result still says variables are gone', async () => {
    const { manager, backend } = await memoryManager();
    const session = await manager.create(PYTHON);
    expect(await session.pause('idle')).toBe(true);
    backend.override.start = async () => {
      throw new SandpitError('DOCKER_UNAVAILABLE', 'Docker is not answering.');
    };
    await expect(session.execute('1')).rejects.toSatisfy((e: unknown) => e instanceof SandpitError && e.code === 'DOCKER_UNAVAILABLE');
    expect(session.state).toBe('failed');
    delete backend.override.start;
    manager.engineCameBack();
    await pollUntil(() => (session.state === 'ready' ? true : undefined), 5_000, 'the session started again');
    const r = await session.execute('2');
    expect(r.stateLost).toBe(true);
    expect(r.message).toMatch(/^This session was paused after 30 minutes without use/);
    await manager.dispose();
  });
});

describe('idle sessions (in-memory engine)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('counts a session idle from when its sandbox was up, not from when it was asked for (a slow start is not idleness)', async () => {
    // The sweeper's clock is fake; the in-memory sandbox answers on real streams.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    const { manager, backend } = await memoryManager(32, { idleTtlMs: 4_000 });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const create = backend.create.bind(backend);
    backend.create = async (spec) => {
      await held;
      return create(spec);
    };
    const creating = manager.create(PYTHON);
    // The engine takes 10 s to make the sandbox (a loaded machine, a cold image).
    vi.setSystemTime(Date.now() + 10_000);
    release();
    const session = await creating;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(manager.list().map((s) => [s.id, s.state])).toEqual([[session.id, 'ready']]);
    // Idle for the time limit after it was up: then it is stopped.
    await vi.advanceTimersByTimeAsync(4_000);
    expect(manager.list()).toEqual([]);
    await manager.dispose();
  });
});
