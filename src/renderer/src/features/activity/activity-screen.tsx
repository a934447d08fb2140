import { useEffect, useMemo, useState } from 'react';
import type { ReactElement } from 'react';
import type { AuditExportFormat } from '../../../../shared/domain/audit';
import { EmptyState, LoadProblem, NotAvailable } from '../../components/empty-state';
import { downloadText } from '../../lib/download';
import { plural } from '../../lib/format';
import { useAppStore, usePanel } from '../../stores/panel-context';
import { ActivityDetail } from './activity-detail';
import { ActivityTable } from './activity-table';
import { NetworkActivity } from '../sessions/network-activity';
import { recordedSessionName } from '../sessions/session-name';
import { ChainStatus } from './chain-status';
import { FiltersBar } from './filters-bar';
import { NO_FILTERS } from './activity-filters';
import { SessionRunsBar } from './session-runs-bar';

/** The audit log: every run, with filters, search, detail, export and the tamper check. */
export function ActivityScreen(): ReactElement {
  const status = useAppStore('activity', (s) => s.status);
  const problem = useAppStore('activity', (s) => s.problem);
  const rows = useAppStore('activity', (s) => s.rows);
  const filters = useAppStore('activity', (s) => s.filters);
  const nextCursor = useAppStore('activity', (s) => s.nextCursor);
  const loadingMore = useAppStore('activity', (s) => s.loadingMore);
  const load = useAppStore('activity', (s) => s.load);
  const loadMore = useAppStore('activity', (s) => s.loadMore);
  const setFilters = useAppStore('activity', (s) => s.setFilters);
  const exportLog = useAppStore('activity', (s) => s.exportLog);
  const sessions = usePanel((s) => s.sessions);
  const [openId, setOpenId] = useState<number | undefined>();
  const [exportNote, setExportNote] = useState<string | undefined>();

  useEffect(() => {
    void load();
  }, [load]);

  const clients = useMemo(() => [...new Set(rows.map((r) => r.client).filter((c): c is string => !!c))].sort(), [rows]);
  const sessionChoices = useMemo(() => {
    const names = new Map(sessions.map((s) => [s.id, s.name]));
    const ids = [...new Set([...sessions.map((s) => s.id), ...rows.map((r) => r.sessionId).filter((s): s is string => !!s)])];
    return ids.map((id) => {
      const recorded = recordedSessionName(rows, id);
      return { id, name: names.get(id) ?? (recorded ? `${recorded} (ended)` : `Ended session (${id.slice(0, 12)})`) };
    });
  }, [rows, sessions]);
  const filtered = JSON.stringify(filters) !== JSON.stringify(NO_FILTERS);

  const doExport = async (format: AuditExportFormat): Promise<void> => {
    setExportNote('Preparing the export…');
    const result = await exportLog(format);
    if ('error' in result) {
      setExportNote(`Export failed: ${result.error}`);
      return;
    }
    const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-');
    downloadText(
      `sandpit-activity-${stamp}.${format}`,
      format === 'csv' ? 'text/csv' : 'application/x-ndjson',
      result.content,
    );
    setExportNote(
      `Exported ${plural(result.rows, 'row')}.` +
        (result.truncated
          ? ' The export stopped at its size limit; “sandpit audit export” on the command line exports everything.'
          : ''),
    );
  };

  if (status === 'unavailable') {
    return (
      <section data-testid="activity-screen">
        <h1 tabIndex={-1}>Activity</h1>
        <NotAvailable testId="activity-unavailable" what="the activity log" />
      </section>
    );
  }

  return (
    <section data-testid="activity-screen" aria-labelledby="activity-title">
      <div className="screen-head">
        <div>
          <h1 id="activity-title" tabIndex={-1}>
            Activity
          </h1>
          <p className="muted">Every piece of code an assistant or you ran through Sandpit, when, and what happened.</p>
        </div>
        <span className="actions">
          <button
            type="button"
            className="secondary export-button"
            onClick={() => void doExport('csv')}
            disabled={status !== 'ready'}
            data-testid="activity-export-csv"
          >
            Download for spreadsheets
            <span className="small muted block">CSV file</span>
          </button>
          <button
            type="button"
            className="secondary export-button"
            onClick={() => void doExport('jsonl')}
            disabled={status !== 'ready'}
            data-testid="activity-export-jsonl"
          >
            Download everything
            <span className="small muted block">JSON lines, with the full code</span>
          </button>
        </span>
      </div>
      <ChainStatus onOpenRow={setOpenId} />
      <details className="card" data-testid="activity-network">
        <summary>Network: the hosts sessions tried to reach</summary>
        <NetworkActivity />
      </details>
      {exportNote ? (
        <p className="muted small" role="status" data-testid="activity-export-note">
          {exportNote}
        </p>
      ) : null}
      <FiltersBar clients={clients} sessions={sessionChoices} />
      {filters.sessionId ? <SessionRunsBar sessionId={filters.sessionId} rows={rows} onOpenRow={setOpenId} /> : null}
      {status === 'error' && problem ? (
        <LoadProblem testId="activity-problem" message={problem} retry={() => void load()} />
      ) : null}
      {status === 'loading' ? <p className="muted">Loading the activity log…</p> : null}
      {status === 'ready' && rows.length === 0 ? (
        filtered ? (
          <EmptyState
            testId="activity-empty"
            action={
              <button
                type="button"
                className="secondary"
                onClick={() => setFilters(NO_FILTERS)}
                data-testid="activity-clear-filters"
              >
                Clear the filters
              </button>
            }
          >
            Nothing matches these filters. Change or clear them to see more.
          </EmptyState>
        ) : (
          <EmptyState testId="activity-empty">
            Nothing has run yet. When your assistant (or you, on the Sessions screen) runs code, every run is recorded
            here.
          </EmptyState>
        )
      ) : null}
      {rows.length > 0 ? (
        <>
          <ActivityTable rows={rows} onOpen={setOpenId} onEndReached={() => void loadMore()} />
          <p className="muted small" data-testid="activity-count">
            {plural(rows.length, 'row')} shown
            {nextCursor ? (loadingMore ? ' · loading more…' : ' · scroll down for more') : ''}
          </p>
        </>
      ) : null}
      {openId !== undefined ? <ActivityDetail key={openId} id={openId} onClose={() => setOpenId(undefined)} onOpen={setOpenId} /> : null}
    </section>
  );
}
