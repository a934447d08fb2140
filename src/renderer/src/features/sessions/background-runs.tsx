import { useEffect, useState } from 'react';
import type { ReactElement } from 'react';
import type { BackgroundRun } from '../../../../shared/domain/background-run';
import { useNow } from '../../lib/use-now';
import { useClient } from '../../stores/panel-context';
import { plainError } from '../../stores/panel-store';
import { backgroundRunKind, backgroundRunState, isBackgroundRunOver } from './background-run-words';

/** How many of a session's background runs are shown (newest first). */
const SHOWN = 20;

/**
 * A session's background runs (issue 23): runs an assistant started with background: true (or as an MCP task), live —
 * their output streams into Live output like every run — each marked "Background" with its state and a Cancel button.
 * Nothing is shown for a session that never had one.
 */
export function BackgroundRuns({ sessionId }: { sessionId: string }): ReactElement | null {
  const client = useClient();
  const now = useNow(1_000);
  const [runs, setRuns] = useState<BackgroundRun[]>([]);
  const [problem, setProblem] = useState<string | undefined>();

  useEffect(() => {
    let live = true;
    const put = (run: BackgroundRun): void =>
      setRuns((list) => [run, ...list.filter((r) => r.runId !== run.runId)].sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, SHOWN));
    const stop = client.subscribe((event) => {
      if (event.name === 'run.updated' && event.payload.sessionId === sessionId) put(event.payload);
    });
    client.call('runs.list', { sessionId }).then(
      ({ runs: listed }) => {
        if (live) for (const run of listed.reverse()) put(run);
      },
      (error: unknown) => {
        if (live) setProblem(plainError(error));
      },
    );
    return () => {
      live = false;
      stop();
    };
  }, [client, sessionId]);

  if (runs.length === 0 && !problem) return null;
  const cancel = (runId: string): void => {
    setProblem(undefined);
    client.call('runs.cancel', { runId }).then(
      // The answer may come after the run's end was announced: a run already over stays as it ended.
      (run) => setRuns((list) => list.map((r) => (r.runId === run.runId && !isBackgroundRunOver(r) ? run : r))),
      (error: unknown) => setProblem(plainError(error)),
    );
  };

  return (
    <section className="card" aria-labelledby="background-runs-title" data-testid="background-runs">
      <h2 id="background-runs-title">Background runs</h2>
      <p className="muted">Started by an assistant to run on their own; their output shows in Live output as it comes.</p>
      {problem ? (
        <p className="error" role="alert" data-testid="background-runs-problem">
          {problem}
        </p>
      ) : null}
      <ul className="plain-list">
        {runs.map((run) => (
          <li key={run.runId} className="row" data-testid="background-run" data-run-id={run.runId} data-state={run.state}>
            <span className="chip" data-testid="background-run-mark">
              Background
            </span>
            <span>
              <strong>{backgroundRunKind(run)}</strong>
              {run.client ? ` from ${run.client}` : ''}: <code>{run.what.split('\n')[0]?.slice(0, 80)}</code>
            </span>
            <span data-testid="background-run-state">{backgroundRunState(run, now)}</span>
            {isBackgroundRunOver(run) ? null : (
              <button type="button" className="secondary small" disabled={run.cancelRequested} onClick={() => cancel(run.runId)} data-testid="background-run-cancel">
                Cancel
              </button>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
