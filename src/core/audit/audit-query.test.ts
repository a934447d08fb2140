import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditFixture, start } from '../../test-support/audit';
import type { AuditFixture } from '../../test-support/audit';
import type { AuditStore } from './audit-store';

let fx: AuditFixture;
let store: AuditStore;
beforeEach(() => {
  fx = auditFixture();
  store = fx.open();
  const rows = [
    { client: 'claude', principal: 'p1', sessionId: 'ses-a', code: 'import numpy as np\nnp.ones(3)', startedAt: new Date('2030-01-01T10:00:00Z'), status: 'ok' },
    { client: 'cursor', principal: 'p2', sessionId: 'ses-b', code: 'print("100%_done")', startedAt: new Date('2030-01-02T10:00:00Z'), status: 'error' },
    { client: 'claude', principal: 'p1', sessionId: 'ses-a', code: 'ls -la', method: 'sessions.runCommand', startedAt: new Date('2030-01-03T10:00:00Z'), status: 'ok' },
    { client: 'panel', principal: undefined, sessionId: 'ses-c', code: 'x' + 'y'.repeat(2_000), startedAt: new Date('2030-01-04T10:00:00Z'), status: 'timeout' },
  ] as const;
  for (const row of rows) {
    const opened = store.begin(start({ ...row, method: 'method' in row ? row.method : 'sessions.execute' }));
    store.complete(opened.id, { status: row.status, stdout: 'out' });
  }
  store.begin(start({ client: 'claude', code: 'still going', startedAt: new Date('2030-01-05T10:00:00Z') }));
});
afterEach(() => fx.cleanup());

const ids = (filters: Parameters<AuditStore['list']>[0]): number[] => store.list(filters).rows.map((r) => r.id);

describe('audit list', () => {
  it('lists newest first, without output, the code cut short', () => {
    const { rows, nextCursor } = store.list({ limit: 50 });
    expect(rows.map((r) => r.id)).toEqual([5, 4, 3, 2, 1]);
    expect(nextCursor).toBeUndefined();
    expect(rows[0]).toMatchObject({ status: 'running', code: 'still going', codeTruncated: false });
    expect(rows[1]).toMatchObject({ codeTruncated: true });
    expect(rows[1]?.code).toHaveLength(1_000);
    expect(rows[1]).not.toHaveProperty('stdout');
    expect(rows[1]?.hash).toMatch(/^[a-f0-9]{64}$/);
  });

  it('filters by client, session, status, method and time', () => {
    expect(ids({ limit: 50, filters: { client: 'claude' } })).toEqual([5, 3, 1]);
    expect(ids({ limit: 50, filters: { sessionId: 'ses-a' } })).toEqual([3, 1]);
    expect(ids({ limit: 50, filters: { status: 'running' } })).toEqual([5]);
    expect(ids({ limit: 50, filters: { method: 'sessions.runCommand' } })).toEqual([3]);
    expect(ids({ limit: 50, filters: { from: '2030-01-02T10:00:00Z', to: '2030-01-04T10:00:00Z' } })).toEqual([3, 2]);
    expect(ids({ limit: 50, filters: { from: '2030-01-02T12:00:00+02:00' } })).toEqual([5, 4, 3, 2]);
    expect(ids({ limit: 50, filters: { client: 'claude', status: 'ok', sessionId: 'ses-a' } })).toEqual([3, 1]);
  });

  it('finds a client by part of its name, in any case, with % and _ taken literally', () => {
    expect(ids({ limit: 50, filters: { client: 'CLAUDE' } })).toEqual([5, 3, 1]);
    expect(ids({ limit: 50, filters: { client: 'laud' } })).toEqual([5, 3, 1]);
    expect(ids({ limit: 50, filters: { client: 'Cur' } })).toEqual([2]);
    expect(ids({ limit: 50, filters: { client: '%' } })).toEqual([]);
    expect(ids({ limit: 50, filters: { client: '_' } })).toEqual([]);
    expect(ids({ limit: 50, filters: { client: 'nobody' } })).toEqual([]);
  });

  it('searches the code, case-insensitively, with % and _ taken literally', () => {
    expect(ids({ limit: 50, filters: { search: 'NUMPY' } })).toEqual([1]);
    expect(ids({ limit: 50, filters: { search: '%_' } })).toEqual([2]);
    expect(ids({ limit: 50, filters: { search: '_' } })).toEqual([2]);
    expect(ids({ limit: 50, filters: { search: 'nothing like it' } })).toEqual([]);
  });

  it('shows a principal only its own rows', () => {
    expect(ids({ limit: 50, principal: 'p2' })).toEqual([2]);
    expect(store.get(2, 'p1')).toBeUndefined();
    expect(store.get(2, 'p2')?.code).toBe('print("100%_done")');
  });

  it('pages with a cursor until there is none', () => {
    const first = store.list({ limit: 2 });
    expect(first.rows.map((r) => r.id)).toEqual([5, 4]);
    expect(first.nextCursor).toBe('4');
    const second = store.list({ limit: 2, cursor: first.nextCursor });
    expect(second.rows.map((r) => r.id)).toEqual([3, 2]);
    const third = store.list({ limit: 2, cursor: second.nextCursor });
    expect(third.rows.map((r) => r.id)).toEqual([1]);
    expect(third.nextCursor).toBeUndefined();
    const filtered = store.list({ limit: 1, cursor: '5', filters: { client: 'claude' } });
    expect(filtered.rows.map((r) => r.id)).toEqual([3]);
    expect(filtered.nextCursor).toBe('3');
  });

  it('gets a whole row', () => {
    expect(store.get(4)?.code).toHaveLength(2_001);
    expect(store.get(4)?.stdout).toBe('out');
    expect(store.get(99)).toBeUndefined();
  });
});
