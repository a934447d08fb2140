import { describe, expect, it } from 'vitest';
import { MAX_CONSOLES, createConsoleStore } from './console-store';

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

describe('console store and how a run ended', () => {
  it('shows the value, the traceback and the note of every run before its last line, and a note said twice once', () => {
    const store = createConsoleStore();
    const { applyEvent } = store.getState();
    applyEvent({ name: 'execution.started', payload: { sessionId: 's', executionId: 'r', code: '1/0', startedAt: '2026-01-01T00:00:00Z' } });
    applyEvent({
      name: 'execution.done',
      payload: {
        sessionId: 's',
        executionId: 'r',
        status: 'error',
        durationMs: 3,
        error: { name: 'ZeroDivisionError', value: 'division by zero', traceback: 'Traceback …\nZeroDivisionError: division by zero' },
        message: 'Variables from before the pause are gone.',
      },
    });
    store.getState().addNote('s', 'Variables from before the pause are gone.', 'r');
    expect(store.getState().buffers.s?.entries.map((e) => e.kind)).toEqual(['code', 'error', 'note', 'done']);
    applyEvent({ name: 'execution.done', payload: { sessionId: 's', executionId: 'v', status: 'ok', durationMs: 3, result: '42' } });
    expect(store.getState().buffers.s?.entries.slice(-2).map((e) => ('text' in e ? e.text : e.kind))).toEqual(['42', 'done']);
  });

  it('a note for a run that could not start comes once, before or after its end', () => {
    const store = createConsoleStore();
    store.getState().addNote('s', 'The sandbox is not running.', 'r');
    store.getState().applyEvent({ name: 'execution.done', payload: { sessionId: 's', executionId: 'r', status: 'failed', durationMs: 3, errorCode: 'CONTAINER_DIED', message: 'The sandbox is not running.' } });
    expect(store.getState().buffers.s?.entries.map((e) => e.kind)).toEqual(['note', 'done']);
  });
});

describe('console store memory', () => {
  it('keeps a bounded number of consoles, forgetting the quietest', () => {
    const store = createConsoleStore();
    for (let i = 0; i <= MAX_CONSOLES; i++) store.getState().addNote(`s${i}`, 'hello');
    store.getState().addNote('s1', 'again');
    store.getState().addNote('extra', 'hi');
    const ids = Object.keys(store.getState().buffers);
    expect(ids).toHaveLength(MAX_CONSOLES);
    expect(ids).toContain('s1');
    expect(ids).toContain('extra');
    expect(ids).not.toContain('s0');
  });
});
