import { useEffect, useRef } from 'react';
import type { ReactElement } from 'react';
import { AUDIT_STATUSES } from '../../../../shared/domain/audit';
import { runStatusWords } from '../sessions/session-words';
import { useAppStore } from '../../stores/panel-context';
import { TIME_RANGES } from './activity-filters';
import type { ActivityFilters, TimeRange } from './activity-filters';

/** Client, session, status, time range and a search in the code; the list reloads as they change. */
export function FiltersBar({ clients, sessions }: { clients: string[]; sessions: { id: string; name: string }[] }): ReactElement {
  const filters = useAppStore('activity', (s) => s.filters);
  const setFilters = useAppStore('activity', (s) => s.setFilters);
  const load = useAppStore('activity', (s) => s.load);
  const first = useRef(true);

  // Reload when filters change; typing waits a moment.
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return undefined;
    }
    const timer = setTimeout(() => void load(), 300);
    return () => clearTimeout(timer);
  }, [filters, load]);

  const set = (change: Partial<ActivityFilters>): void => setFilters(change);

  return (
    <form
      className="filters"
      role="search"
      aria-label="Filter the activity"
      onSubmit={(e) => e.preventDefault()}
      data-testid="activity-filters"
    >
      <label className="inline-field grow">
        <span className="muted small">Search in code</span>
        <input
          type="search"
          value={filters.search}
          onChange={(e) => set({ search: e.target.value })}
          placeholder="e.g. requests.get"
          data-testid="filter-search"
        />
      </label>
      <label className="inline-field">
        <span className="muted small">Assistant</span>
        <input
          type="text"
          list="activity-clients"
          value={filters.client}
          onChange={(e) => set({ client: e.target.value })}
          placeholder="Any"
          title="Part of a name is enough, in any case"
          data-testid="filter-client"
        />
        <datalist id="activity-clients">
          {clients.map((c) => (
            <option key={c} value={c} />
          ))}
        </datalist>
      </label>
      <label className="inline-field">
        <span className="muted small">Session</span>
        <select value={filters.sessionId} onChange={(e) => set({ sessionId: e.target.value })} data-testid="filter-session">
          <option value="">Any</option>
          {filters.sessionId && !sessions.some((s) => s.id === filters.sessionId) ? <option value={filters.sessionId}>{filters.sessionId}</option> : null}
          {sessions.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
            </option>
          ))}
        </select>
      </label>
      <label className="inline-field">
        <span className="muted small">Result</span>
        <select
          value={filters.status}
          onChange={(e) => set({ status: e.target.value as ActivityFilters['status'] })}
          data-testid="filter-status"
        >
          <option value="">Any</option>
          {AUDIT_STATUSES.map((s) => (
            <option key={s} value={s}>
              {runStatusWords(s)}
            </option>
          ))}
        </select>
      </label>
      <label className="inline-field">
        <span className="muted small">When</span>
        <select
          value={filters.range}
          onChange={(e) => set({ range: e.target.value as TimeRange })}
          data-testid="filter-range"
        >
          {(Object.keys(TIME_RANGES) as TimeRange[]).map((r) => (
            <option key={r} value={r}>
              {TIME_RANGES[r].label}
            </option>
          ))}
        </select>
      </label>
      {filters.range === 'custom' ? (
        <>
          <label className="inline-field">
            <span className="muted small">From</span>
            <input
              type="datetime-local"
              value={filters.from}
              onChange={(e) => set({ from: e.target.value })}
              data-testid="filter-from"
            />
          </label>
          <label className="inline-field">
            <span className="muted small">To</span>
            <input
              type="datetime-local"
              value={filters.to}
              onChange={(e) => set({ to: e.target.value })}
              data-testid="filter-to"
            />
          </label>
        </>
      ) : null}
    </form>
  );
}
