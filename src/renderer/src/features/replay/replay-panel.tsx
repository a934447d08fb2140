import type { ReactElement } from 'react';
import { useAppStore } from '../../stores/panel-context';
import { OUTCOME_TONE, OUTCOME_WORDS, replaySummary } from './replay-words';
import { RunDiff } from './run-diff';
import { FOLDER_MODE_WORDS } from '../../../../shared/domain/shared-folder';

/**
 * The newest replay of a session, live: each run's outcome (same output, differs with a line diff, could not run,
 * skipped), a link to the original row and to the replayed one, and to the replay session's runs.
 */
export function ReplayPanel({
  sessionId,
  onOpenRow,
  onShowSession,
}: {
  sessionId: string;
  onOpenRow: (id: number) => void;
  onShowSession: (sessionId: string) => void;
}): ReactElement | null {
  const view = useAppStore('replay', (s) => {
    const id = s.latest[sessionId];
    return id === undefined ? undefined : s.replays[id];
  });
  const problem = useAppStore('replay', (s) => s.problems[sessionId]);
  if (problem) {
    return (
      <p className="field-error" role="alert" data-testid="replay-problem">
        {problem}
      </p>
    );
  }
  if (!view) return null;
  return (
    <section className="card replay-panel" aria-label="Replay" data-testid="replay-panel" data-state={view.state}>
      <h2>Replay</h2>
      <p role="status" data-testid="replay-state" className={view.state === 'failed' ? 'tone-bad' : undefined}>
        {replaySummary(view)}
      </p>
      {view.message && view.state !== 'failed' ? <p className="muted small">{view.message}</p> : null}
      {view.missingFolders?.length ? (
        <p className="notice notice-wait" data-testid="replay-missing-folders">
          The original session had{' '}
          {view.missingFolders.map((f, i) => (
            <span key={f.mountPath}>
              {i > 0 ? ' and ' : ''}the folder <code>{f.hostPath}</code> at <code>{f.mountPath}</code> ({FOLDER_MODE_WORDS[f.mode]})
            </span>
          ))}
          ; this replay ran without {view.missingFolders.length === 1 ? 'it' : 'them'} (it was shared with that session, not with its environment),
          so runs that read {view.missingFolders.length === 1 ? 'it' : 'them'} fail here with “file not found” and show as different.
        </p>
      ) : null}
      <p className="muted small">
        Each run was repeated in order in a fresh sandbox{view.environment ? ` from the environment “${view.environment}”` : ''}; output that depends on the time or on
        chance shows as different.
        {view.replaySessionId ? (
          <>
            {' '}
            <button type="button" className="link-button" onClick={() => onShowSession(view.replaySessionId!)} data-testid="replay-show-runs">
              Show the replay’s runs
            </button>
          </>
        ) : null}
      </p>
      <ol className="list replay-runs">
        {view.runs.map((run) => (
          <li key={run.originalId} className="list-row replay-run" data-testid="replay-run" data-outcome={run.outcome}>
            <div className="grow">
              <span className={`tone-${OUTCOME_TONE[run.outcome]}`}>
                <strong>{OUTCOME_WORDS[run.outcome]}</strong>
              </span>{' '}
              <code className="ellipsis">{run.code.split('\n')[0]}</code>
              {run.note ? <span className="muted small block">{run.note}</span> : null}
              <RunDiff run={run} />
            </div>
            <span className="actions">
              <button type="button" className="secondary small" onClick={() => onOpenRow(run.originalId)} data-testid="replay-open-original">
                Original
              </button>
              {run.replayId !== undefined ? (
                <button type="button" className="secondary small" onClick={() => onOpenRow(run.replayId!)} data-testid="replay-open-replay">
                  Replayed
                </button>
              ) : null}
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}
