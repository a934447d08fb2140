import { useState } from 'react';
import type { ReactElement } from 'react';
import { EmptyState } from '../../components/empty-state';
import { ConfirmModal } from '../../components/modal';
import { LANGUAGE_WORDS, formatAge } from '../../lib/format';
import { useNow } from '../../lib/use-now';
import { usePanel } from '../../stores/panel-context';
import { ConsoleView } from './console-view';
import { FileBrowser } from './file-browser';
import { RunHistory } from './run-history';
import { SessionUsage } from './session-usage';
import { STATE_WORDS, isEnded } from './session-words';
import { SnippetBox } from './snippet-box';

const TABS = [
  ['history', 'Run history'],
  ['files', 'Files'],
  ['usage', 'Usage and limits'],
] as const;
type Tab = (typeof TABS)[number][0];

/** One session: live output, a box to run code, its runs, its files, what it uses; stop and restart. */
export function SessionPage({ sessionId }: { sessionId: string }): ReactElement {
  const session = usePanel((s) => s.sessions.find((x) => x.id === sessionId));
  const navigate = usePanel((s) => s.navigate);
  const stopSession = usePanel((s) => s.stopSession);
  const restartSession = usePanel((s) => s.restartSession);
  const pending = usePanel((s) => s.pending.includes(sessionId));
  const [tab, setTab] = useState<Tab>('history');
  const [confirm, setConfirm] = useState<'stop' | 'restart' | undefined>();
  const now = useNow();

  const back = (
    <button type="button" className="link-button" onClick={() => navigate('sessions')} data-testid="session-back">
      ← All sessions
    </button>
  );

  if (!session) {
    return (
      <section data-testid="session-page" data-session-id={sessionId}>
        {back}
        <EmptyState testId="session-gone">
          This session has ended and its sandbox was removed. Its runs stay in Activity, and files it made stay in
          Artifacts. Start a new session from the list.
        </EmptyState>
        <ConsoleView sessionId={sessionId} />
      </section>
    );
  }

  const ended = isEnded(session);
  const ready = session.state === 'ready' || session.state === 'busy';

  return (
    <section data-testid="session-page" data-session-id={sessionId} aria-labelledby="session-title">
      {back}
      <div className="screen-head">
        <div>
          <h1 id="session-title">
            {session.name}{' '}
            <span className={`badge badge-${session.state}`} data-testid="session-state">
              {STATE_WORDS[session.state]}
            </span>
          </h1>
          <p className="muted">
            {session.environmentName ? `${session.environmentName} · ` : `${LANGUAGE_WORDS[session.language]} · `}
            {session.client ? `started by ${session.client}` : 'started here'} · {formatAge(session.createdAt, now)} ·{' '}
            <code>{session.id}</code>
          </p>
        </div>
        {ended ? null : (
          <span className="actions">
            <button
              type="button"
              className="secondary"
              onClick={() => setConfirm('restart')}
              disabled={pending}
              data-testid="session-restart"
            >
              Restart
            </button>
            <button
              type="button"
              className="danger"
              onClick={() => setConfirm('stop')}
              disabled={pending}
              data-testid="session-stop"
            >
              {pending ? 'Working…' : 'Stop'}
            </button>
          </span>
        )}
      </div>

      <ConsoleView sessionId={sessionId} />
      {ended ? null : <SnippetBox session={session} disabled={!ready} />}

      <div className="tabs" role="tablist" aria-label="Session details">
        {TABS.map(([id, label]) => (
          <button
            key={id}
            type="button"
            role="tab"
            id={`tab-${id}`}
            aria-selected={tab === id}
            aria-controls={`panel-${id}`}
            className={tab === id ? 'tab tab-on' : 'tab'}
            onClick={() => setTab(id)}
            data-testid={`session-tab-${id}`}
          >
            {label}
          </button>
        ))}
      </div>
      <div className="card" role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`}>
        {tab === 'history' ? <RunHistory sessionId={sessionId} /> : null}
        {tab === 'files' ? <FileBrowser sessionId={sessionId} disabled={!ready} /> : null}
        {tab === 'usage' ? <SessionUsage session={session} now={now} /> : null}
      </div>

      {confirm === 'stop' ? (
        <ConfirmModal
          title="Stop this session?"
          testId="confirm-stop"
          confirmLabel="Stop session"
          danger
          onClose={() => setConfirm(undefined)}
          onConfirm={() => {
            setConfirm(undefined);
            void stopSession(sessionId);
          }}
        >
          <p>The sandbox is removed with its variables and files. Files already copied to Artifacts are kept.</p>
        </ConfirmModal>
      ) : null}
      {confirm === 'restart' ? (
        <ConfirmModal
          title="Restart this session?"
          testId="confirm-restart"
          confirmLabel="Restart"
          onClose={() => setConfirm(undefined)}
          onConfirm={() => {
            setConfirm(undefined);
            void restartSession(sessionId);
          }}
        >
          <p>
            Running code is stopped and the session starts fresh: variables are forgotten. Use this when the session is
            stuck.
          </p>
        </ConfirmModal>
      ) : null}
    </section>
  );
}
