import { describe, expect, it, vi } from 'vitest';
import type { SandpitClient } from '../../../../shared/api/client';
import { SandpitError } from '../../../../shared/api/errors';
import type { ReplayView } from '../../../../shared/domain/replay';
import { createReplayStore } from './replay-store';

function view(change: Partial<ReplayView>): ReplayView {
  return {
    id: 'replay-1',
    originalSessionId: 's-1',
    state: 'starting',
    startedAt: '2030-01-01T00:00:00.000Z',
    runs: [
      { originalId: 1, method: 'sessions.execute', code: 'print(1)', outcome: 'pending', diffs: [] },
      { originalId: 2, method: 'sessions.execute', code: 'print(2)', outcome: 'pending', diffs: [] },
    ],
    ...change,
  };
}

function client(answer: () => Promise<unknown>): SandpitClient {
  return {
    transport: 'ipc',
    call: vi.fn(answer) as unknown as SandpitClient['call'],
    subscribe: () => () => undefined,
    onLink: () => () => undefined,
    setToken: () => undefined,
    onRefused: () => () => undefined,
  };
}

describe('replay store', () => {
  it('follows a replay live, and an answer that arrives after newer events does not take it back', async () => {
    let answer: (value: ReplayView) => void = () => undefined;
    const store = createReplayStore(client(() => new Promise<ReplayView>((resolve) => (answer = resolve))));
    const starting = store.getState().start('s-1');
    expect(store.getState().starting['s-1']).toBe(true);
    const first = view({});
    const running = view({ state: 'running', runs: [{ ...first.runs[0]!, outcome: 'matched' }, { ...first.runs[1]!, outcome: 'running' }] });
    store.getState().applyEvent({ name: 'replay.updated', payload: running });
    answer(first);
    await starting;
    expect(store.getState().starting['s-1']).toBe(false);
    const shown = store.getState().replays[store.getState().latest['s-1']!];
    expect(shown?.runs.map((r) => r.outcome)).toEqual(['matched', 'running']);
    store.getState().applyEvent({ name: 'replay.updated', payload: view({ state: 'done', runs: [{ ...first.runs[0]!, outcome: 'matched' }, { ...first.runs[1]!, outcome: 'differs' }] }) });
    expect(store.getState().replays['replay-1']?.state).toBe('done');
  });

  it('says why a replay could not start', async () => {
    const store = createReplayStore(client(() => Promise.reject(new SandpitError('CONFLICT', 'The session s-1 is being replayed already; wait for that replay to end.'))));
    await store.getState().start('s-1');
    expect(store.getState().problems['s-1']).toMatch(/being replayed already/);
    expect(store.getState().latest['s-1']).toBeUndefined();
  });
});
