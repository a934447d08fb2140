import { useState } from 'react';
import type { ReactElement } from 'react';
import type { SessionInfo } from '../../../../shared/domain/session';
import { EmptyState } from '../../components/empty-state';
import { formatAge, plural } from '../../lib/format';
import { useNow } from '../../lib/use-now';
import { useAppStore, usePanel } from '../../stores/panel-context';
import { GuideCard } from '../guide/guide-card';
import { guideShown } from '../guide/guide-store';
import { NewSessionDialog } from './new-session-dialog';
import { SessionChips } from './session-chips';
import { usePendingChanges } from './use-pending-changes';
import { StopSessionDialog } from './stop-session-dialog';
import { isEnded, startedBy, stateWords } from './session-words';

function SessionRow({ session, now }: { session: SessionInfo; now: number }): ReactElement {
  const stopSession = usePanel((s) => s.stopSession);
  const navigate = usePanel((s) => s.navigate);
  const stopping = usePanel((s) => s.pending.includes(session.id));
  const lost = usePanel((s) => s.link === 'lost');
  const [confirm, setConfirm] = useState(false);
  const pendingChanges = usePendingChanges(session.id, !isEnded(session) && session.folders.some((f) => f.mode === 'review'));
  return (
    <li className="list-row" data-testid="session-row" data-session-id={session.id}>
      <a
        href={`#/sessions/${encodeURIComponent(session.id)}`}
        className="row-main link-button"
        onClick={(event) => {
          if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
          event.preventDefault();
          navigate('sessions', session.id);
        }}
        data-testid="session-open"
        aria-label={`Open the session ${session.name}`}
      >
        <span className="row-title">
          <strong data-testid="session-name">{session.name}</strong>
          <span className={`badge badge-${lost ? 'unknown' : session.state}`} data-testid="session-state" data-state={lost ? 'unknown' : session.state}>
            {stateWords(session.state, lost)}
          </span>
          <SessionChips session={session} />
          {session.kept ? (
            <span className="badge" data-testid="session-kept" title="Kept when Sandpit quits: files and installed packages stay">
              Kept
            </span>
          ) : null}
          {pendingChanges.count ? (
            <span className="badge badge-busy" data-testid="session-row-pending-changes" title="Changes to your folders that wait for your OK (open the session → Changes)">
              {pendingChanges.count === 1 ? '1 change waiting' : `${pendingChanges.count} changes waiting`}
            </span>
          ) : null}
        </span>
        <span className="muted small">
          {startedBy(session)} · {plural(session.runs, 'run')} · started {formatAge(session.createdAt, now)}
        </span>
      </a>
      {isEnded(session) ? null : (
        <button type="button" className="secondary" onClick={() => setConfirm(true)} disabled={stopping || lost} data-testid="session-stop">
          {stopping ? 'Stopping…' : 'Stop'}
        </button>
      )}
      {confirm ? (
        <StopSessionDialog
          name={session.name}
          pendingChanges={pendingChanges.count}
          onClose={() => setConfirm(false)}
          onConfirm={() => {
            setConfirm(false);
            void stopSession(session.id);
          }}
        />
      ) : null}
    </li>
  );
}

/** The sessions Sandpit runs right now, with the first-run guide and what to do when there are none. */
export function SessionList(): ReactElement {
  const sessions = usePanel((s) => s.sessions);
  const engineUp = usePanel((s) => s.engine?.state === 'up' && s.link === 'up');
  const navigate = usePanel((s) => s.navigate);
  const guide = useAppStore('guide', guideShown);
  const [choosing, setChoosing] = useState(false);
  const now = useNow();

  return (
    <section aria-labelledby="sessions-title" data-testid="sessions-screen">
      <div className="screen-head">
        <div>
          <h1 id="sessions-title" tabIndex={-1}>
            Sessions
          </h1>
          <p className="muted">Each session is a sandbox where code runs, away from your files and your network.</p>
        </div>
        <span className="actions">
          {guide ? null : (
            <button type="button" className="secondary" onClick={() => navigate('getting-started')} data-testid="guide-open">
              Getting started
            </button>
          )}
          <button type="button" onClick={() => setChoosing(true)} disabled={!engineUp} data-testid="session-new">
            New session
          </button>
        </span>
      </div>
      <GuideCard />
      {sessions.length === 0 ? (
        <EmptyState testId="sessions-empty">
          No sessions yet. When your assistant runs code, its session appears here — or start one yourself with “New session”.
          {engineUp ? '' : ' Docker has to be running first.'}
        </EmptyState>
      ) : (
        <ul className="list card" data-testid="session-list">
          {sessions.map((session) => (
            <SessionRow key={session.id} session={session} now={now} />
          ))}
        </ul>
      )}
      {choosing ? <NewSessionDialog onClose={() => setChoosing(false)} /> : null}
    </section>
  );
}
