import type { ReactElement } from 'react';
import type { SessionInfo, SessionState } from '../../../../shared/domain/session';
import { usePanel } from '../../stores/panel-context';

const STATE_WORDS: Record<SessionState, string> = {
  starting: 'Starting',
  ready: 'Ready',
  busy: 'Running code',
  restarting: 'Restarting',
  stopping: 'Stopping',
  stopped: 'Stopped',
  failed: 'Failed',
};

const LANGUAGE_WORDS: Record<SessionInfo['language'], string> = {
  python: 'Python',
  javascript: 'JavaScript',
  bash: 'Bash',
};

function SessionRow({ session }: { session: SessionInfo }): ReactElement {
  const stopSession = usePanel((s) => s.stopSession);
  const stopping = usePanel((s) => s.pending.includes(session.id));
  const ended = session.state === 'stopped' || session.state === 'failed' || session.state === 'stopping';
  return (
    <li className="session">
      <div>
        <strong>{LANGUAGE_WORDS[session.language]}</strong>{' '}
        <span className={`badge badge-${session.state}`}>{STATE_WORDS[session.state]}</span>
        <div className="muted">
          {session.client ? `Used by ${session.client} · ` : ''}
          {session.runs === 1 ? '1 run' : `${session.runs} runs`} · started{' '}
          {new Date(session.createdAt).toLocaleTimeString()} · <code>{session.id}</code>
        </div>
      </div>
      {ended ? null : (
        <button type="button" onClick={() => void stopSession(session.id)} disabled={stopping}>
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
  const creating = usePanel((s) => s.pending.includes('new'));
  const createSession = usePanel((s) => s.createSession);

  return (
    <section className="card" aria-labelledby="sessions-title">
      <div className="row">
        <h2 id="sessions-title">Sessions</h2>
        <button type="button" onClick={() => void createSession('python')} disabled={!engineUp || creating}>
          {creating ? 'Starting…' : 'New Python session'}
        </button>
      </div>
      {sessions.length === 0 ? (
        <p className="muted">
          No sessions yet. When an assistant runs code through Sandpit, its session shows up here. You can also start
          one yourself with “New Python session”.
        </p>
      ) : (
        <ul className="sessions">
          {sessions.map((session) => (
            <SessionRow key={session.id} session={session} />
          ))}
        </ul>
      )}
    </section>
  );
}
