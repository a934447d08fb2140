import type { AuditFilters, AuditStatus, AuditSummary } from '../../../../shared/domain/audit';

export const TIME_RANGES = {
  any: { label: 'Any time', ms: undefined },
  hour: { label: 'Last hour', ms: 3_600_000 },
  day: { label: 'Last 24 hours', ms: 86_400_000 },
  week: { label: 'Last 7 days', ms: 7 * 86_400_000 },
  custom: { label: 'Between…', ms: undefined },
} as const;
export type TimeRange = keyof typeof TIME_RANGES;

/** The filters as the person set them (text as typed). */
export interface ActivityFilters {
  client: string;
  sessionId: string;
  status: AuditStatus | '';
  range: TimeRange;
  /** datetime-local values for the custom range. */
  from: string;
  to: string;
  search: string;
}

export const NO_FILTERS: ActivityFilters = {
  client: '',
  sessionId: '',
  status: '',
  range: 'any',
  from: '',
  to: '',
  search: '',
};

function isoFromLocal(value: string): string | undefined {
  if (!value) return undefined;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? undefined : time.toISOString();
}

/** The filters audit.list and audit.export take. */
export function toAuditFilters(filters: ActivityFilters, now: number = Date.now()): AuditFilters {
  const out: AuditFilters = {};
  if (filters.client.trim()) out.client = filters.client.trim();
  if (filters.sessionId.trim()) out.sessionId = filters.sessionId.trim();
  if (filters.status) out.status = filters.status;
  if (filters.search.trim()) out.search = filters.search.trim();
  const span = TIME_RANGES[filters.range].ms;
  if (span !== undefined) out.from = new Date(now - span).toISOString();
  if (filters.range === 'custom') {
    const from = isoFromLocal(filters.from);
    const to = isoFromLocal(filters.to);
    if (from) out.from = from;
    if (to) out.to = to;
  }
  return out;
}

/** Whether a live row belongs in the list the filters show (as the server would decide). */
export function matchesFilters(row: AuditSummary, filters: AuditFilters): boolean {
  // As the server does: part of the name, in any case ("claude" finds "Claude Desktop").
  if (filters.client !== undefined && !(row.client ?? '').toLowerCase().includes(filters.client.toLowerCase())) return false;
  if (filters.sessionId !== undefined && row.sessionId !== filters.sessionId) return false;
  if (filters.status !== undefined && row.status !== filters.status) return false;
  if (filters.method !== undefined && row.method !== filters.method) return false;
  const started = Date.parse(row.startedAt);
  if (filters.from !== undefined && started < Date.parse(filters.from)) return false;
  if (filters.to !== undefined && started >= Date.parse(filters.to)) return false;
  if (filters.search !== undefined && !row.code.toLowerCase().includes(filters.search.toLowerCase())) return false;
  return true;
}

/**
 * Puts a live row into a newest-first list: replaces the row with its id (a run that finished),
 * adds it when new, removes it when it no longer matches the filters.
 */
export function mergeRow(rows: AuditSummary[], row: AuditSummary, filters: AuditFilters): AuditSummary[] {
  const index = rows.findIndex((r) => r.id === row.id);
  const matches = matchesFilters(row, filters);
  if (index !== -1) {
    if (!matches) return rows.filter((r) => r.id !== row.id);
    const next = [...rows];
    next[index] = row;
    return next;
  }
  if (!matches) return rows;
  return [row, ...rows].sort((a, b) => b.id - a.id);
}
