import { useEffect, useMemo, useState } from 'react';
import type { ReactElement } from 'react';
import { EmptyState, LoadProblem } from '../../components/empty-state';
import { useNow } from '../../lib/use-now';
import { useAppStore } from '../../stores/panel-context';
import { useSessionNames } from '../sessions/session-name';
import { ArtifactCard } from './artifact-card';
import { ArtifactDetail } from './artifact-detail';

const PAGE = 48;

/** Files that runs made, across sessions: a gallery with previews, details and download. */
export function ArtifactsScreen(): ReactElement {
  const status = useAppStore('artifacts', (s) => s.status);
  const problem = useAppStore('artifacts', (s) => s.problem);
  const artifacts = useAppStore('artifacts', (s) => s.artifacts);
  const load = useAppStore('artifacts', (s) => s.load);
  const [session, setSession] = useState('');
  const [shown, setShown] = useState(PAGE);
  const [openSha, setOpenSha] = useState<string | undefined>();
  const now = useNow();
  const names = useSessionNames();

  useEffect(() => {
    void load();
  }, [load]);

  const sessions = useMemo(() => [...new Set(artifacts.map((a) => a.sessionId))], [artifacts]);
  // What each session is called: its name now, else the name recorded when its files were made.
  const nameOf = (id: string): string | undefined => names.get(id) ?? artifacts.find((a) => a.sessionId === id && a.sessionName)?.sessionName;
  const visible = useMemo(
    () => (session ? artifacts.filter((a) => a.sessionId === session) : artifacts),
    [artifacts, session],
  );
  const open = openSha ? artifacts.find((a) => a.sha256 === openSha) : undefined;

  return (
    <section data-testid="artifacts-screen" aria-labelledby="artifacts-title">
      <div className="screen-head">
        <div>
          <h1 id="artifacts-title" tabIndex={-1}>
            Artifacts
          </h1>
          <p className="muted">Files and pictures that runs made. They are kept after the session ends.</p>
        </div>
        <span className="actions">
          {sessions.length > 1 ? (
            <label className="inline-field">
              <span className="muted small">Session</span>
              <select
                value={session}
                onChange={(e) => setSession(e.target.value)}
                data-testid="artifacts-session-filter"
              >
                <option value="">All sessions</option>
                {sessions.map((id) => (
                  <option key={id} value={id}>
                    {nameOf(id) ?? `Ended session (${id.slice(0, 12)})`}
                  </option>
                ))}
              </select>
            </label>
          ) : null}
          <button type="button" className="secondary" onClick={() => void load()} data-testid="artifacts-refresh">
            Refresh
          </button>
        </span>
      </div>
      {status === 'error' && problem ? (
        <LoadProblem testId="artifacts-problem" message={problem} retry={() => void load()} />
      ) : null}
      {status === 'loading' ? <p className="muted">Loading artifacts…</p> : null}
      {status === 'ready' && visible.length === 0 ? (
        <EmptyState testId="artifacts-empty">
          No artifacts yet. When code writes a file in /workspace or draws a chart, it shows up here. Try asking your
          assistant to “make a chart and save it as chart.png”.
        </EmptyState>
      ) : null}
      {visible.length > 0 ? (
        <ul className="gallery" data-testid="artifact-gallery">
          {visible.slice(0, shown).map((artifact) => (
            <ArtifactCard
              key={artifact.sha256 + artifact.sessionId + artifact.path}
              artifact={artifact}
              sessionName={nameOf(artifact.sessionId) ?? 'Ended session'}
              now={now}
              onOpen={() => setOpenSha(artifact.sha256)}
            />
          ))}
        </ul>
      ) : null}
      {visible.length > shown ? (
        <button type="button" className="secondary" onClick={() => setShown(shown + PAGE)} data-testid="artifacts-more">
          Show more ({visible.length - shown} left)
        </button>
      ) : null}
      {open ? <ArtifactDetail artifact={open} onClose={() => setOpenSha(undefined)} /> : null}
    </section>
  );
}
