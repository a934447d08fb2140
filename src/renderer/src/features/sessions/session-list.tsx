import { useState } from 'react';
import type { ReactElement } from 'react';
import type { SessionInfo } from '../../../../shared/domain/session';
import { EmptyState } from '../../components/empty-state';
import { formatAge, plural } from '../../lib/format';
import { useNow } from '../../lib/use-now';
import { usePanel } from '../../stores/panel-context';
import { NewSessionDialog } from './new-session-dialog';
import { STATE_WORDS, isEnded } from './session-words';

function SessionRow({ session, now }: { session: SessionInfo; now: number }): ReactElement {
  const stopSession = usePanel((s) => s.stopSession);
  const navigate = usePanel((s) => s.navigate);
  const stopping = usePanel((s) => s.pending.includes(session.id));
  return (
    <li className="list-row" data-testid="session-row" data-session-id={session.id}>
      <button
        type="button"
        className="row-main link-button"
        onClick={() => navigate('sessions', session.id)}
        data-testid="session-open"
        aria-label={`Open the session ${session.name}`}
      >
        <span className="row-title">
          <strong data-testid="session-name">{session.name}</strong>
          <span className={`badge badge-${session.state}`} data-testid="session-state">
            {STATE_WORDS[session.state]}
          </span>
          {session.environmentName ? <span className="chip-static" data-testid="session-environment">{session.environmentName}</span> : null}
        </span>
        <span className="muted small">
          {session.client ? `Started by ${session.client}` : 'Started here'} · {plural(session.runs, 'run')} · started{' '}
          {formatAge(session.createdAt, now)} · <code>{session.id}</code>
        </span>
      </button>
      {isEnded(session) ? null : (
        <button
          type="button"
          className="secondary"
          onClick={() => void stopSession(session.id)}
          disabled={stopping}
          data-testid="session-stop"
        >
          {stopping ? 'Stopping…' : 'Stop'}
        </button>
      )}
    </li>
  );
}

/** The sessions Sandpit runs right now, with what to do when there are none. */
export function SessionList(): ReactElement {
  const sessions = usePanel((s) => s.sessions);
  const engineUp = usePanel((s) => s.engine?.state === 'up');
  const [choosing, setChoosing] = useState(false);
  const now = useNow();

  return (
    <section aria-labelledby="sessions-title" data-testid="sessions-screen">
      <div className="screen-head">
        <div>
          <h1 id="sessions-title">Sessions</h1>
          <p className="muted">Each session is a sandbox where code runs, away from your files and your network.</p>
        </div>
        <button type="button" onClick={() => setChoosing(true)} disabled={!engineUp} data-testid="session-new">
          New session
        </button>
      </div>
      {sessions.length === 0 ? (
        <EmptyState testId="sessions-empty">
          No sessions yet. Ask your assistant to run some code, or start one here with “New session”.
          {engineUp ? '' : ' Docker has to be running first (see the bottom of the window).'}
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
