import { describe, expect, it } from 'vitest';
import type { AuditSummary } from '../../../../shared/domain/audit';
import { NO_FILTERS, matchesFilters, mergeRow, toAuditFilters } from './activity-filters';

function row(id: number, patch: Partial<AuditSummary> = {}): AuditSummary {
  return {
    id,
    method: 'sessions.execute',
    startedAt: '2026-01-01T12:00:00.000Z',
    transport: 'mcp-http',
    client: 'claude',
    sessionId: 's1',
    code: 'import requests',
    status: 'running',
    stdoutTruncated: false,
    stderrTruncated: false,
    artifacts: [],
    codeTruncated: false,
    hash: 'h',
    ...patch,
  };
}

describe('activity filters', () => {
  it('turns what the person set into audit filters', () => {
    const now = Date.parse('2026-01-02T00:00:00Z');
    expect(toAuditFilters(NO_FILTERS, now)).toEqual({});
    expect(
      toAuditFilters({ ...NO_FILTERS, client: ' claude ', status: 'error', range: 'day', search: 'requests' }, now),
    ).toEqual({
      client: 'claude',
      status: 'error',
      search: 'requests',
      from: '2026-01-01T00:00:00.000Z',
    });
    const custom = toAuditFilters({ ...NO_FILTERS, range: 'custom', from: '2026-01-01T10:00', to: 'nonsense' }, now);
    expect(custom.from).toBe(new Date('2026-01-01T10:00').toISOString());
    expect(custom.to).toBeUndefined();
  });

  it('decides as the server would whether a live row matches', () => {
    expect(matchesFilters(row(1), { search: 'REQUESTS' })).toBe(true);
    expect(matchesFilters(row(1), { client: 'cursor' })).toBe(false);
    expect(matchesFilters(row(1), { client: 'LAUD' }), 'part of the name, any case, as the server').toBe(true);
    expect(matchesFilters(row(1), { from: '2026-01-01T13:00:00Z' })).toBe(false);
    expect(matchesFilters(row(1), { to: '2026-01-01T12:00:00Z' })).toBe(false);
  });

  it('replaces a finished run in place, adds new rows newest first, drops rows that stop matching', () => {
    let rows = [row(2), row(1)];
    rows = mergeRow(rows, row(1, { status: 'ok' }), {});
    expect(rows.map((r) => [r.id, r.status])).toEqual([
      [2, 'running'],
      [1, 'ok'],
    ]);
    rows = mergeRow(rows, row(3), {});
    expect(rows.map((r) => r.id)).toEqual([3, 2, 1]);
    rows = mergeRow(rows, row(2, { status: 'ok' }), { status: 'running' });
    expect(rows.map((r) => r.id)).toEqual([3, 1]);
    expect(mergeRow(rows, row(9, { client: 'x' }), { client: 'claude' })).toBe(rows);
  });
});
