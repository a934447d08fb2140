import { afterEach, describe, expect, it } from 'vitest';
import { SandpitError } from '../../shared/api/errors';
import { fakeAgentDocker } from '../../test-support/fake-agent-docker';
import type { FakeAgentDocker } from '../../test-support/fake-agent-docker';
import { EventBus } from '../events/event-bus';
import { defaultConfig } from '../config';
import { DaemonEvents } from '../docker/daemon-events';
import { plainWorkspaces } from '../docker/workspace-storage';
import { DockerBackend, resolveChannel } from '../docker/docker-backend';
import type { EngineEndpoint } from '../docker/docker-client';
import { EngineMonitor } from './engine-monitor';
import type { ArtifactStore } from '../files/artifact-store';
import { silentLogger } from '../log';
import { pollUntil } from '../util/with-timeout';
import { SessionManager } from './session-manager';
import type { CreateSessionInput } from './session-manager';

const LOCAL: EngineEndpoint = { kind: 'local', address: '/var/run/docker.sock' };
const REMOTE: EngineEndpoint = { kind: 'remote', address: 'tcp://10.0.0.5:2376' };

const platform = Object.getOwnPropertyDescriptor(process, 'platform');
const getuid = Object.getOwnPropertyDescriptor(process, 'getuid');

/** Pretends to run on `os` as user `uid` (undefined: a platform without getuid, i.e. Windows). */
function pretend(os: NodeJS.Platform, uid: number | undefined): void {
  Object.defineProperty(process, 'platform', { value: os, configurable: true });
  Object.defineProperty(process, 'getuid', {
    value: uid === undefined ? undefined : () => uid,
    configurable: true,
    writable: true,
  });
}

afterEach(() => {
  if (platform) Object.defineProperty(process, 'platform', platform);
  if (getuid) Object.defineProperty(process, 'getuid', getuid);
});

describe('resolveChannel', () => {
  it('uses the unix socket for a local engine on Linux when running as root', () => {
    pretend('linux', 0);
    expect(resolveChannel('auto', LOCAL)).toBe('socket');
  });

  it.each<[string, NodeJS.Platform, number | undefined, EngineEndpoint]>([
    ['a remote engine', 'linux', 0, REMOTE],
    ['macOS (the engine runs in a VM)', 'darwin', 0, LOCAL],
    ['Windows', 'win32', undefined, LOCAL],
    ['a non-root user (cannot hand the dir to the sandbox user)', 'linux', 1000, LOCAL],
  ])('attaches for %s', (_why, os, uid, endpoint) => {
    pretend(os, uid);
    expect(resolveChannel('auto', endpoint)).toBe('attach');
  });

  it('respects an explicit setting whatever the engine and platform', () => {
    pretend('linux', 0);
    expect(resolveChannel('attach', LOCAL)).toBe('attach');
    pretend('darwin', 501);
    expect(resolveChannel('socket', REMOTE)).toBe('socket');
    expect(resolveChannel('attach', REMOTE)).toBe('attach');
  });
});

const PYTHON: CreateSessionInput = { language: 'python', image: 'sandpit-fake:1' };

/** A manager over the fake engine (attach channel, no warm pool), with its engine up. */
async function fakeManager(
  maxSessions = 32,
  more: { poolSize?: number; sandboxRemoved?: (sessionId: string) => void } = {},
): Promise<{ manager: SessionManager; fake: FakeAgentDocker; bus: EventBus }> {
  const fake = fakeAgentDocker();
  const backend = new DockerBackend({
    docker: fake.docker,
    events: new DaemonEvents(fake.docker, 'inst-test', silentLogger),
    identity: { instanceId: 'inst-test', host: 'test', pid: process.pid, processStart: '' },
    instanceDir: '/nonexistent',
    channel: 'attach',
    workspaces: plainWorkspaces,
    log: silentLogger,
  });
  const engine = new EngineMonitor(backend, silentLogger);
  await engine.check();
  const bus = new EventBus();
  const manager = new SessionManager({
    config: defaultConfig({ channel: 'attach', poolSize: more.poolSize ?? 0, maxSessions, startTimeoutMs: 5_000 }),
    backend,
    engine,
    bus,
    artifacts: {} as ArtifactStore,
    installSettings: () => {
      throw new Error('no installs in these tests');
    },
    ...(more.sandboxRemoved ? { sandboxRemoved: more.sandboxRemoved } : {}),
    log: silentLogger,
  });
  return { manager, fake, bus };
}

describe('SessionManager (fake engine)', () => {
  it('keeps one warm pool for per-sandbox variables and reports every sandbox removed for good, warm ones never used included', async () => {
    const issued: string[] = [];
    const removed: string[] = [];
    const { manager } = await fakeManager(32, { poolSize: 2, sandboxRemoved: (id) => removed.push(id) });
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
    const { manager, fake } = await fakeManager(32, { poolSize: 1 });
    await manager.dispose();
    await manager.warmUp([{ language: 'python', image: 'sandpit-fake:1', isolation: 'standard' }]);
    expect(manager.poolStatus()).toEqual([]);
    expect(fake.containers.size).toBe(0);
  });

  it('a create while the pool is starting its first sandbox takes that one, starting no second one', async () => {
    const { manager, fake } = await fakeManager(32, { poolSize: 1 });
    const warming = manager.warmUp([{ language: 'python', image: 'sandpit-fake:1', isolation: 'standard' }]);
    const session = await manager.create({ ...PYTHON, isolation: 'standard' });
    expect(session.info()).toMatchObject({ fromPool: true, state: 'ready' });
    await warming;
    await pollUntil(() => (manager.poolStatus()[0]?.ready === 1 ? true : undefined), 5_000, 'the pool refilled');
    // One for the session, one refilled: never a cold start beside the warm one.
    expect(fake.containers.size).toBe(2);
    await manager.dispose();
    expect(fake.containers.size).toBe(0);
  });

  it('never exceeds maxSessions when creates run at once', async () => {
    const { manager } = await fakeManager(2);
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
    const { manager, fake } = await fakeManager(1);
    fake.override.startContainer = () => Promise.reject(new SandpitError('INTERNAL', 'no start'));
    await expect(manager.create(PYTHON)).rejects.toThrow('no start');
    delete fake.override.startContainer;
    await expect(manager.create(PYTHON).then((session) => session.info())).resolves.toMatchObject({ state: 'ready' });
    await manager.dispose();
  });

  it('refuses to create a session once disposed, and removes one whose container started during dispose', async () => {
    const { manager, fake } = await fakeManager();
    let started!: () => void;
    const startedOnce = new Promise<void>((resolve) => (started = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    fake.override.attachContainer = async (id) => {
      started();
      await held;
      delete fake.override.attachContainer;
      return fake.docker.attachContainer(id);
    };
    const racing = manager.create(PYTHON);
    await startedOnce;
    await manager.dispose();
    release();
    await expect(racing).rejects.toThrow(/shutting down/);
    expect(fake.containers.size).toBe(0);
    await expect(manager.create(PYTHON)).rejects.toThrow(/shutting down/);
  });

  it('marks a session failed (not restarting for ever) when its restart fails, and rethrows', async () => {
    const { manager, fake, bus } = await fakeManager();
    const { id } = await manager.create(PYTHON);
    const states: string[] = [];
    bus.on('session.updated', (info) => states.push(info.state));
    fake.override.startContainer = () => Promise.reject(new SandpitError('DOCKER_UNAVAILABLE', 'the engine went away'));
    await expect(manager.session(id).restart()).rejects.toMatchObject({ code: 'DOCKER_UNAVAILABLE' });
    expect(manager.session(id).state).toBe('failed');
    expect(states).toEqual(['restarting', 'failed']);
    delete fake.override.startContainer;
    await expect(manager.session(id).restart()).resolves.toMatchObject({ state: 'ready' });
    await manager.dispose();
  });
});

describe('pausing and resuming (fake engine)', () => {
  it('pauses only an idle session, queues what comes meanwhile in order, and resumes once for all of it', async () => {
    const { manager, bus } = await fakeManager();
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
    const { manager, fake } = await fakeManager();
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
    expect(fake.containers.size).toBe(0);
    await manager.dispose();
  });

  it('refuses to keep a session whose network goes through the package proxy, saying why', async () => {
    const { manager } = await fakeManager();
    await expect(manager.create({ ...PYTHON, networkPolicy: 'packages', keep: true })).rejects.toThrow(/cannot be kept: the proxy pass it was started with ends when Sandpit quits/);
    await manager.dispose();
  });
});

describe('resuming while the engine is gone (fake engine)', () => {
  it('fails the call with DOCKER_UNAVAILABLE, starts the session once the engine is back, and the first result still says variables are gone', async () => {
    const { manager, fake } = await fakeManager();
    const session = await manager.create(PYTHON);
    expect(await session.pause('idle')).toBe(true);
    fake.override.startContainer = async () => {
      throw new SandpitError('DOCKER_UNAVAILABLE', 'Docker is not answering.');
    };
    await expect(session.execute('1')).rejects.toSatisfy((e: unknown) => e instanceof SandpitError && e.code === 'DOCKER_UNAVAILABLE');
    expect(session.state).toBe('failed');
    delete fake.override.startContainer;
    manager.engineCameBack();
    await pollUntil(() => (session.state === 'ready' ? true : undefined), 5_000, 'the session started again');
    const r = await session.execute('2');
    expect(r.stateLost).toBe(true);
    expect(r.message).toMatch(/^This session was paused after 30 minutes without use/);
    await manager.dispose();
  });
});
