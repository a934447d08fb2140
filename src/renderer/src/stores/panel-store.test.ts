import { describe, expect, it, vi } from 'vitest';
import type { SandpitClient, SandpitEvent } from '../../../shared/api/client';
import type { SessionInfo } from '../../../shared/domain/session';
import { SandpitError } from '../../../shared/api/errors';
import type { AccessProblem } from '../../../shared/api/transport';
import { DEFAULT_LIMITS } from '../../../shared/domain/limits';
import { connectPanel, createPanelStore } from './panel-store';

function session(id: string, createdAt: string, state: SessionInfo['state'] = 'ready'): SessionInfo {
  return {
    id,
    name: `Python ${id}`,
    shared: true,
    language: 'python',
    image: 'sandpit/python:1',
    state,
    channel: 'socket',
    limits: DEFAULT_LIMITS,
    containerId: `c-${id}`,
    createdAt,
    lastUsedAt: createdAt,
    runs: 0,
    fromPool: false,
    packages: [],
    network: 'none',
    isolation: 'standard',
    idleTimeoutMs: 1_800_000,
    kept: false,
    folders: [],
  };
}

function fakeClient(
  answers: Record<string, (input: unknown) => unknown>,
): SandpitClient & { emit: (e: SandpitEvent) => void; link: (up: boolean) => void; refuse: (p: AccessProblem) => void } {
  let listener: ((e: SandpitEvent) => void) | undefined;
  let linkListener: ((up: boolean) => void) | undefined;
  let refusedListener: ((p: AccessProblem) => void) | undefined;
  return {
    link: (up) => linkListener?.(up),
    refuse: (p) => refusedListener?.(p),
    transport: 'ipc',
    call: vi.fn((name: string, input?: unknown) => {
      const answer = answers[name];
      if (!answer) return Promise.reject(new SandpitError('NOT_FOUND', `no ${name}`));
      try {
        return Promise.resolve(answer(input));
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    }) as unknown as SandpitClient['call'],
    subscribe: (l) => {
      listener = l;
      return () => (listener = undefined);
    },
    onLink: (l) => {
      linkListener = l;
      return () => (linkListener = undefined);
    },
    setToken: () => undefined,
    onRefused: (l) => {
      refusedListener = l;
      return () => (refusedListener = undefined);
    },
    emit: (e) => listener?.(e),
  };
}

const up = { state: 'up' as const, endpoint: '/var/run/docker.sock', version: '20.10.24' };

describe('panel store', () => {
  it('loads engine status and sessions (newest first), then follows live events', async () => {
    const client = fakeClient({
      'engine.status': () => up,
      'sessions.list': () => ({
        sessions: [session('a', '2026-01-01T00:00:00Z'), session('b', '2026-01-02T00:00:00Z')],
      }),
    });
    const store = createPanelStore(client);
    const stop = connectPanel(store, client);
    await vi.waitFor(() => expect(store.getState().connection).toBe('ready'));
    expect(store.getState().engine).toEqual(up);
    expect(store.getState().sessions.map((s) => s.id)).toEqual(['b', 'a']);

    client.emit({ name: 'session.updated', payload: session('a', '2026-01-01T00:00:00Z', 'busy') });
    client.emit({ name: 'session.updated', payload: session('c', '2026-01-03T00:00:00Z') });
    client.emit({ name: 'session.removed', payload: { sessionId: 'b' } });
    client.emit({ name: 'engine.status', payload: { state: 'down', endpoint: 'x', message: 'gone', fix: 'start it' } });
    expect(store.getState().sessions.map((s) => [s.id, s.state])).toEqual([
      ['c', 'ready'],
      ['a', 'busy'],
    ]);
    expect(store.getState().engine).toMatchObject({ state: 'down', fix: 'start it' });
    stop();
  });

  it('an answer about the engine that crosses a newer live event does not show over it ("Use this one", then Docker is up)', async () => {
    // The check was asked while the engine was still down; its answer is delivered after the event saying it is up.
    let answer: (status: unknown) => void = () => undefined;
    const down = { state: 'down' as const, endpoint: 'unix:///tmp/nope.sock', message: 'nothing answers', fix: 'start it' };
    const client = fakeClient({ 'engine.status': () => new Promise((resolve) => (answer = resolve)), 'sessions.list': () => ({ sessions: [] }) });
    const store = createPanelStore(client, { connection: 'ready', engine: down });
    const checking = store.getState().checkEngine();
    store.getState().applyEvent({ name: 'engine.status', payload: up });
    answer(down);
    await checking;
    expect(store.getState().engine).toEqual(up);
    // With no event in between, the answer is what the panel shows.
    const again = store.getState().checkEngine();
    answer({ ...up, version: '27.0.0' });
    await again;
    expect(store.getState().engine).toMatchObject({ state: 'up', version: '27.0.0' });
  });

  it('says in plain words when the core cannot be reached', async () => {
    const client = fakeClient({ 'sessions.list': () => ({ sessions: [] }) });
    const store = createPanelStore(client);
    await store.getState().load();
    expect(store.getState()).toMatchObject({ connection: 'unreachable', problem: 'no engine.status' });
  });

  it('shows a failed action until dismissed and tracks pending stops', async () => {
    let release: () => void = () => undefined;
    const client = fakeClient({
      'sessions.create': () => {
        throw new SandpitError(
          'IMAGE_MISSING',
          'No python sandbox image is configured. Build it with "npm run build:images".',
        );
      },
      'sessions.stop': () => new Promise<unknown>((resolve) => (release = () => resolve({ stopped: true }))),
    });
    const store = createPanelStore(client);
    await expect(store.getState().createSession({ language: 'python' })).resolves.toBeUndefined();
    expect(store.getState().actionError).toMatch(/build:images/);
    expect(store.getState().pending).toEqual([]);
    store.getState().dismissError();
    expect(store.getState().actionError).toBeUndefined();

    const stopping = store.getState().stopSession('s1');
    expect(store.getState().pending).toEqual(['s1']);
    release();
    await stopping;
    expect(store.getState().pending).toEqual([]);
  });
});

describe('panel store without a valid token', () => {
  it('says how to open the panel with a token', async () => {
    const client = fakeClient({
      'engine.status': () => {
        throw new SandpitError('UNAUTHORIZED', 'A valid access token is required.');
      },
      'sessions.list': () => ({ sessions: [] }),
    });
    const store = createPanelStore(client);
    await store.getState().load();
    expect(store.getState().connection).toBe('unreachable');
    expect(store.getState().problem).toMatch(/#token=/);
  });
});

describe('panel store and the link to Sandpit', () => {
  it('says the link is lost, and loads again (with the other screens) when it is back', async () => {
    let loads = 0;
    const client = fakeClient({
      'engine.status': () => {
        loads++;
        return up;
      },
      'sessions.list': () => ({ sessions: [] }),
    });
    const store = createPanelStore(client);
    const onBack = vi.fn();
    connectPanel(store, client, onBack);
    await vi.waitFor(() => expect(store.getState().connection).toBe('ready'));
    client.link(true);
    expect(onBack).not.toHaveBeenCalled();
    client.link(false);
    expect(store.getState().link).toBe('lost');
    client.link(true);
    expect(store.getState().link).toBe('up');
    expect(onBack).toHaveBeenCalledTimes(1);
    await vi.waitFor(() => expect(loads).toBe(2));
  });

  it('turns a refusal after the panel showed into the words for what happened', async () => {
    const client = fakeClient({ 'engine.status': () => up, 'sessions.list': () => ({ sessions: [] }) });
    const store = createPanelStore(client);
    connectPanel(store, client);
    await vi.waitFor(() => expect(store.getState().connection).toBe('ready'));
    client.refuse('replaced');
    expect(store.getState()).toMatchObject({ connection: 'unreachable', access: 'replaced' });
    expect(store.getState().problem).toMatch(/new panel link/);
    // A link that comes back does not hide the refusal; a new token does.
    client.link(true);
    expect(store.getState().connection).toBe('unreachable');
    await store.getState().retryAccess();
    expect(store.getState()).toMatchObject({ connection: 'ready', access: undefined });
  });
});
