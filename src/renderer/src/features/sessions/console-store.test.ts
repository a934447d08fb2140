import { describe, expect, it } from 'vitest';
import { createConsoleStore } from './console-store';

describe('console store', () => {
  it('follows a run from its events: console entries and the run seen', () => {
    const store = createConsoleStore();
    const { applyEvent } = store.getState();
    applyEvent({
      name: 'execution.started',
      payload: { sessionId: 's', executionId: 'r', code: 'print(1)', startedAt: '2026-01-01T00:00:00Z' },
    });
    applyEvent({
      name: 'execution.output',
      payload: { sessionId: 's', executionId: 'r', stream: 'stdout', text: '1\n' },
    });
    applyEvent({ name: 'execution.done', payload: { sessionId: 's', executionId: 'r', status: 'ok', durationMs: 12 } });
    expect(store.getState().buffers.s?.entries.map((e) => e.kind)).toEqual(['code', 'stdout', 'done']);
    expect(store.getState().runs.s).toEqual([
      {
        sessionId: 's',
        executionId: 'r',
        code: 'print(1)',
        startedAt: '2026-01-01T00:00:00Z',
        status: 'ok',
        durationMs: 12,
      },
    ]);
    store.getState().clear('s');
    expect(store.getState().buffers.s?.entries).toEqual([]);
  });
});
