import type { ReactElement } from 'react';
import type { AuditSummary } from '../../../../shared/domain/audit';
import { VirtualList } from '../../components/virtual-list';
import { codeExcerpt, tookWords } from '../../lib/format';
import { useSessionNames } from '../sessions/session-name';
import { runStatusTone, runStatusWords } from '../sessions/session-words';

export const ROW_HEIGHT = 40;

const METHOD_WORDS: Record<AuditSummary['method'], string> = {
  'sessions.execute': 'Code',
  'sessions.runCommand': 'Command',
  'sessions.runFile': 'File',
  'packages.install': 'Install',
  'packages.check': 'Package check',
};

/** Today's runs by their time only; older ones with their day. */
function time(iso: string, now = new Date()): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '—';
  if (d.toDateString() === now.toDateString()) return d.toLocaleTimeString(undefined, { timeStyle: 'medium' });
  return d.toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' });
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
  return (
    <div
      className="atable"
      role="table"
      aria-label="Activity"
      aria-rowcount={rows.length + 1}
      data-testid="activity-table"
    >
      <div className="arow ahead" role="row" aria-rowindex={1}>
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
            className="arow abutton"
            onClick={() => onOpen(row.id)}
            data-testid="activity-row"
            data-audit-id={row.id}
            data-status={row.status}
          >
            <span role="cell" className="ellipsis" title={new Date(row.startedAt).toLocaleString()}>
              {time(row.startedAt)}
            </span>
            <span role="cell" className="ellipsis">
              {row.client ?? row.transport}
            </span>
            <span role="cell" className="ellipsis acol-session" title={row.sessionId}>
              {row.sessionId ? (names.get(row.sessionId) ?? 'Ended session') : '—'}
            </span>
            <span role="cell" className={`ellipsis tone-${runStatusTone(row.status)}`}>
              {runStatusWords(row.status)}
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
              <span className="muted small">{METHOD_WORDS[row.method]}</span> <code>{codeExcerpt(row.code, 120)}</code>
            </span>
          </button>
        )}
      />
    </div>
  );
}
