import { describe, expect, it, vi } from 'vitest';
import type { SandpitClient } from '../../../../shared/api/client';
import { SandpitError } from '../../../../shared/api/errors';
import type { AuditSummary } from '../../../../shared/domain/audit';
import { createActivityStore } from './activity-store';

function row(id: number): AuditSummary {
  return {
    id,
    method: 'sessions.execute',
    startedAt: '2026-01-01T12:00:00.000Z',
    transport: 'ipc',
    code: 'x',
    status: 'ok',
    stdoutTruncated: false,
    stderrTruncated: false,
    artifacts: [],
    codeTruncated: false,
    hash: 'h',
  };
}

function client(call: (name: string, input: unknown) => unknown): SandpitClient {
  return {
    transport: 'ipc',
    call: vi.fn((name: string, input: unknown) => {
      try {
        return Promise.resolve(call(name, input));
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    }) as unknown as SandpitClient['call'],
    subscribe: () => () => undefined,
    onLink: () => () => undefined,
    setToken: () => undefined,
    onRefused: () => () => undefined,
  };
}

describe('activity store', () => {
  it('loads pages with the cursor, with the filters set, and follows appended rows', async () => {
    const seen: unknown[] = [];
    const store = createActivityStore(
      client((name, input) => {
        seen.push(input);
        const cursor = (input as { cursor?: string }).cursor;
        return cursor ? { rows: [row(1)] } : { rows: [row(3), row(2)], nextCursor: '2' };
      }),
    );
    store.getState().setFilters({ client: 'claude' });
    await store.getState().load();
    await store.getState().loadMore();
    expect(store.getState().rows.map((r) => r.id)).toEqual([3, 2, 1]);
    expect(store.getState().nextCursor).toBeUndefined();
    expect(seen).toEqual([
      { filters: { client: 'claude' }, limit: 200 },
      { filters: { client: 'claude' }, limit: 200, cursor: '2' },
    ]);
    store.getState().applyEvent({ name: 'audit.appended', payload: { ...row(4), client: 'claude' } });
    store.getState().applyEvent({ name: 'audit.appended', payload: { ...row(5), client: 'other' } });
    expect(store.getState().rows.map((r) => r.id)).toEqual([4, 3, 2, 1]);
  });

  it('says when this Sandpit has no activity log yet', async () => {
    const store = createActivityStore(
      client(() => {
        throw new SandpitError('NOT_FOUND', 'Unknown method "audit.list".');
      }),
    );
    await store.getState().load();
    expect(store.getState().status).toBe('unavailable');
  });

  it('reports the chain check and export failures in plain words', async () => {
    const store = createActivityStore(
      client((name) => {
        if (name === 'audit.verify') return { ok: false, rows: 10, brokenAt: 7, reason: 'row 7 was changed' };
        throw new SandpitError('INTERNAL', 'disk full');
      }),
    );
    await store.getState().check();
    expect(store.getState().verify).toMatchObject({ ok: false, brokenAt: 7 });
    await expect(store.getState().exportLog('csv')).resolves.toEqual({ error: 'disk full' });
  });
});
