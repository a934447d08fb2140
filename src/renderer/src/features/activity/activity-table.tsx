import { useMemo } from 'react';
import type { ReactElement } from 'react';
import type { AuditSummary } from '../../../../shared/domain/audit';
import { AUDIT_METHOD_WORDS } from '../../../../shared/domain/audit-words';
import { VirtualList } from '../../components/virtual-list';
import { codeExcerpt, tookWords } from '../../lib/format';
import { useAppStore } from '../../stores/panel-context';
import { useSessionNames } from '../sessions/session-name';
import { runStatusTone, runStatusWords } from '../sessions/session-words';

export const ROW_HEIGHT = 40;

/** When a run started, always with its day: "Today, 14:03:22", "Yesterday, 09:10", "28 Nov 2026, 16:45". */
export function rowTime(iso: string, now = new Date()): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '—';
  const yesterday = new Date(now);
  yesterday.setDate(now.getDate() - 1);
  if (d.toDateString() === now.toDateString()) return `Today, ${d.toLocaleTimeString(undefined, { timeStyle: 'medium' })}`;
  if (d.toDateString() === yesterday.toDateString()) return `Yesterday, ${d.toLocaleTimeString(undefined, { timeStyle: 'short' })}`;
  return d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** A row's status in words: a run still open while its approval waits says so, not "Running". */
function statusWords(row: AuditSummary, waiting: ReadonlySet<number>): string {
  return row.status === 'running' && waiting.has(row.id) ? 'Waiting for your approval' : runStatusWords(row.status);
}

/** The audit rows, newest first, in a virtualized table; a row opens its detail. */
export function ActivityTable({
  rows,
  onOpen,
  onEndReached,
}: {
  rows: AuditSummary[];
  onOpen: (id: number) => void;
  onEndReached: () => void;
}): ReactElement {
  const names = useSessionNames();
  const pending = useAppStore('approvals', (s) => s.pending);
  const waiting = useMemo(() => new Set(pending.map((a) => a.auditId).filter((id): id is number => id !== undefined)), [pending]);
  const verify = useAppStore('activity', (s) => s.verify);
  const brokenAt = verify && !('error' in verify) && !verify.ok ? verify.brokenAt : undefined;
  return (
    <div
      className="atable"
      role="table"
      aria-label="Activity"
      aria-rowcount={rows.length + 1}
      data-testid="activity-table"
    >
      <div className="arow ahead" role="row" aria-rowindex={1}>
        <span role="columnheader" title="The row's number in the log (the tamper check names rows by it)">
          Row
        </span>
        <span role="columnheader">Time</span>
        <span role="columnheader">Assistant</span>
        <span role="columnheader" className="acol-session">
          Session
        </span>
        <span role="columnheader" data-testid="activity-col-result">
          Result
        </span>
        <span role="columnheader" className="acol-took">
          Took
        </span>
        <span role="columnheader">What ran</span>
      </div>
      <VirtualList
        items={rows}
        rowHeight={ROW_HEIGHT}
        height={520}
        testId="activity-rows"
        label="Activity rows"
        getKey={(row) => String(row.id)}
        onEndReached={onEndReached}
        renderRow={(row) => (
          <button
            type="button"
            className={`arow abutton${row.id === brokenAt ? ' arow-broken' : ''}`}
            onClick={() => onOpen(row.id)}
            data-testid="activity-row"
            data-audit-id={row.id}
            data-status={row.status}
            data-waiting={row.status === 'running' && waiting.has(row.id) ? 'approval' : undefined}
            data-broken={row.id === brokenAt ? 'true' : undefined}
            aria-label={row.id === brokenAt ? `Row ${row.id}: the tamper check found the log broken here` : undefined}
          >
            <span role="cell" className="ellipsis muted" data-testid="activity-row-number">
              {row.id}
            </span>
            <span role="cell" className="ellipsis" title={new Date(row.startedAt).toLocaleString()} data-testid="activity-row-time">
              {rowTime(row.startedAt)}
            </span>
            <span role="cell" className="ellipsis">
              {row.client ?? row.transport}
            </span>
            <span role="cell" className="ellipsis acol-session" title={row.sessionId}>
              {row.sessionId ? (names.get(row.sessionId) ?? row.sandbox?.sessionName ?? 'Ended session') : '—'}
            </span>
            <span role="cell" className={`ellipsis tone-${runStatusTone(row.status)}`} data-testid="activity-row-status">
              {statusWords(row, waiting)}
            </span>
            <span role="cell" className="acol-took">
              {tookWords(row.durationMs)}
            </span>
            <span role="cell" className="ellipsis">
              {row.replayOf !== undefined ? (
                <span className="muted small" title={`A replay of row ${row.replayOf}`} data-testid="activity-row-replay">
                  Replay ·{' '}
                </span>
              ) : null}
              {row.backgroundRun !== undefined ? (
                <span className="muted small" title={`Background run ${row.backgroundRun}: it ran after the call that started it had returned`} data-testid="activity-row-background">
                  Background ·{' '}
                </span>
              ) : null}
              <span className="muted small">{AUDIT_METHOD_WORDS[row.method]}</span> <code>{codeExcerpt(row.code, 120)}</code>
            </span>
          </button>
        )}
      />
    </div>
  );
}
