import { useEffect, useState } from 'react';
import type { ReactElement } from 'react';
import type { AuditSummary } from '../../../../shared/domain/audit';
import { EmptyState } from '../../components/empty-state';
import { codeExcerpt, formatTime, tookWords } from '../../lib/format';
import { isUnavailable } from '../../lib/unavailable';
import { useAppStore, useClient } from '../../stores/panel-context';
import { plainError } from '../../stores/panel-store';
import { ActivityDetail } from '../activity/activity-detail';
import { mergeRow } from '../activity/activity-filters';
import type { RunSeen } from './console-store';
import { runStatusTone, runStatusWords } from './session-words';

const NO_RUNS: RunSeen[] = [];

interface HistoryRow {
  key: string;
  auditId?: number;
  startedAt: string;
  status?: string;
  durationMs?: number;
  code: string;
}

/** The session's runs from the activity log (live), or — where the log is not available — the runs seen here. */
function useSessionRuns(sessionId: string): { rows: HistoryRow[]; source: 'audit' | 'seen'; problem?: string } {
  const client = useClient();
  const seen = useAppStore('console', (s) => s.runs[sessionId] ?? NO_RUNS);
  const [audit, setAudit] = useState<AuditSummary[] | 'unavailable' | undefined>();
  const [problem, setProblem] = useState<string | undefined>();

  useEffect(() => {
    let live = true;
    const filters = { sessionId };
    const stop = client.subscribe((event) => {
      if (event.name === 'audit.appended' && live)
        setAudit((rows) => (Array.isArray(rows) ? mergeRow(rows, event.payload, filters) : rows));
    });
    client.call('audit.list', { filters, limit: 200 }).then(
      (page) => {
        if (live) setAudit(page.rows);
      },
      (error: unknown) => {
        if (!live) return;
        if (isUnavailable(error)) setAudit('unavailable');
        else {
          setProblem(plainError(error));
          setAudit('unavailable');
        }
      },
    );
    return () => {
      live = false;
      stop();
    };
  }, [client, sessionId]);

  if (Array.isArray(audit)) {
    return {
      source: 'audit',
      rows: audit.map((r) => ({
        key: String(r.id),
        auditId: r.id,
        startedAt: r.startedAt,
        status: r.status,
        ...(r.durationMs !== undefined ? { durationMs: r.durationMs } : {}),
        code: r.code,
      })),
    };
  }
  return {
    source: 'seen',
    ...(problem ? { problem } : {}),
    rows: seen.map((r) => ({
      key: r.executionId,
      startedAt: r.startedAt,
      ...(r.status !== undefined ? { status: r.status } : {}),
      ...(r.durationMs !== undefined ? { durationMs: r.durationMs } : {}),
      code: r.code,
    })),
  };
}

/** Runs of this session, newest first; a row from the activity log opens its full record. */
export function RunHistory({ sessionId }: { sessionId: string }): ReactElement {
  const { rows, source, problem } = useSessionRuns(sessionId);
  const [openId, setOpenId] = useState<number | undefined>();
  if (rows.length === 0) {
    return (
      <EmptyState testId="history-empty">
        No runs in this session yet. Type some code in the box above and press Run, or ask your assistant to use this
        session.
      </EmptyState>
    );
  }
  return (
    <>
      {source === 'seen' ? (
        <p className="muted small" data-testid="history-source">
          Showing the runs seen since this window opened
          {problem ? ` (the activity log could not be read: ${problem})` : ''}.
        </p>
      ) : null}
      <table className="table" data-testid="session-history" data-source={source}>
        <thead>
          <tr>
            <th scope="col">Started</th>
            <th scope="col">Result</th>
            <th scope="col">Took</th>
            <th scope="col">Code</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((run) => (
            <tr key={run.key} data-testid="history-row">
              <td>{formatTime(run.startedAt)}</td>
              <td>
                <span className={`tone-${runStatusTone(run.status)}`}>{runStatusWords(run.status)}</span>
              </td>
              <td>{tookWords(run.durationMs)}</td>
              <td>
                {run.auditId !== undefined ? (
                  <button
                    type="button"
                    className="link-button"
                    onClick={() => setOpenId(run.auditId)}
                    title={run.code}
                    data-testid="history-open"
                  >
                    <code>{codeExcerpt(run.code, 60)}</code>
                  </button>
                ) : (
                  <code title={run.code}>{codeExcerpt(run.code, 60)}</code>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {openId !== undefined ? <ActivityDetail id={openId} onClose={() => setOpenId(undefined)} /> : null}
    </>
  );
}
