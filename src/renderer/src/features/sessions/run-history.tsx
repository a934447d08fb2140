import type { ReactElement } from 'react';
import { EmptyState } from '../../components/empty-state';
import { codeExcerpt, formatDuration, formatTime } from '../../lib/format';
import { useAppStore } from '../../stores/panel-context';
import type { RunSeen } from './console-store';
import { runStatusTone, runStatusWords } from './session-words';

const NO_RUNS: RunSeen[] = [];

/** Runs of this session the panel saw (since it opened), newest first. */
export function RunHistory({ sessionId }: { sessionId: string }): ReactElement {
  const runs = useAppStore('console', (s) => s.runs[sessionId] ?? NO_RUNS);
  if (runs.length === 0) {
    return (
      <EmptyState testId="history-empty">
        No runs seen yet. Runs appear here as they happen; the Activity screen keeps the full record.
      </EmptyState>
    );
  }
  return (
    <table className="table" data-testid="session-history">
      <thead>
        <tr>
          <th scope="col">Started</th>
          <th scope="col">Result</th>
          <th scope="col">Took</th>
          <th scope="col">Code</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((run) => (
          <tr key={run.executionId} data-testid="history-row">
            <td>{formatTime(run.startedAt)}</td>
            <td>
              <span className={`tone-${runStatusTone(run.status)}`}>{runStatusWords(run.status)}</span>
            </td>
            <td>{run.durationMs === undefined ? '…' : formatDuration(run.durationMs)}</td>
            <td>
              <code title={run.code}>{codeExcerpt(run.code, 60)}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
