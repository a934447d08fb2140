import { useEffect, useState } from 'react';
import type { ReactElement } from 'react';
import type { AuditSummary } from '../../../../shared/domain/audit';
import { useAppStore, useClient } from '../../stores/panel-context';
import { DownloadNotebookButton } from '../notebooks/download-notebook-button';
import { ReplayPanel } from '../replay/replay-panel';
import { recordedSessionName, useSessionName } from '../sessions/session-name';

/** The session a replay session's runs repeat (from the original row of one of them), once known. */
function useReplayedSession(rows: readonly AuditSummary[]): string | undefined {
  const client = useClient();
  const originalRow = rows.find((r) => r.replayOf !== undefined)?.replayOf;
  const [sessionId, setSessionId] = useState<string | undefined>();
  useEffect(() => {
    let live = true;
    setSessionId(undefined);
    if (originalRow === undefined) return undefined;
    client.call('audit.get', { id: originalRow }).then(
      (entry) => {
        if (live) setSessionId(entry.sessionId);
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [client, originalRow]);
  return sessionId;
}

/**
 * Shown while Activity lists one session's runs: its notebook, a replay of its runs in a fresh sandbox (with the
 * result run by run), and — for a replay session — the way back to the session it replayed.
 */
export function SessionRunsBar({ sessionId, rows, onOpenRow }: { sessionId: string; rows: readonly AuditSummary[]; onOpenRow: (id: number) => void }): ReactElement {
  const known = useSessionName(sessionId, recordedSessionName(rows, sessionId));
  const name = known === 'Ended session' ? `the ended session ${sessionId}` : known;
  const start = useAppStore('replay', (s) => s.start);
  const starting = useAppStore('replay', (s) => s.starting[sessionId] === true);
  const replaying = useAppStore('replay', (s) => {
    const id = s.latest[sessionId];
    const state = id === undefined ? undefined : s.replays[id]?.state;
    return state === 'starting' || state === 'running';
  });
  const setFilters = useAppStore('activity', (s) => s.setFilters);
  const replayed = useReplayedSession(rows);
  const showSession = (id: string): void => setFilters({ sessionId: id });

  return (
    <>
      <div className="card session-runs-bar" data-testid="activity-session-bar">
        <div className="grow">
          <strong>Runs of {name}</strong>
          <span className="muted small block">
            Download them as a Jupyter notebook, or replay them in order in a fresh sandbox to see whether they still give the same output.
          </span>
          {replayed ? (
            <span className="small block">
              This is a replay of{' '}
              <button type="button" className="link-button" onClick={() => showSession(replayed)} data-testid="replay-of-link">
                session {replayed}
              </button>
              .
            </span>
          ) : null}
        </div>
        <span className="actions">
          <DownloadNotebookButton sessionId={sessionId} testId="activity-notebook" />
          <button
            type="button"
            className="secondary"
            onClick={() => void start(sessionId)}
            disabled={starting || replaying || rows.length === 0}
            data-testid="activity-replay"
          >
            {starting || replaying ? 'Replaying…' : 'Replay'}
          </button>
        </span>
      </div>
      <ReplayPanel sessionId={sessionId} onOpenRow={onOpenRow} onShowSession={showSession} />
    </>
  );
}
