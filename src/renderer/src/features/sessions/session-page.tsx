import { useState } from 'react';
import type { ReactElement } from 'react';
import { ISOLATION_WORDS } from '../../../../shared/domain/isolation';
import { EmptyState } from '../../components/empty-state';
import { ConfirmModal } from '../../components/modal';
import { LANGUAGE_WORDS, formatAge } from '../../lib/format';
import { useNow } from '../../lib/use-now';
import { usePanel } from '../../stores/panel-context';
import { DownloadNotebookButton } from '../notebooks/download-notebook-button';
import { BackgroundRuns } from './background-runs';
import { SessionGrants } from './session-grants';
import { ConsoleView } from './console-view';
import { FileBrowser } from './file-browser';
import { RunHistory } from './run-history';
import { SessionGraphs } from './session-graphs';
import { NetworkActivity } from './network-activity';
import { SessionUsage } from './session-usage';
import { SharedFolders } from './shared-folders';
import { ChangesView } from './changes-view';
import { usePendingChanges } from './use-pending-changes';
import { SessionProcesses } from './session-processes';
import { SessionPreviews } from './session-previews';
import { NETWORK_SHORT, isEnded, secretsWords, startedBy, stateWords } from './session-words';
import { SnippetBox } from './snippet-box';
import { StopSessionDialog } from './stop-session-dialog';
import { SessionSnapshotActions } from '../snapshots/session-snapshot-actions';

const TABS = [
  ['history', 'Run history'],
  ['processes', 'Processes'],
  ['preview', 'Preview'],
  ['files', 'Files'],
  ['network', 'Network'],
  ['folders', 'Shared folders'],
  ['changes', 'Changes'],
  ['usage', 'Limits and details'],
] as const;
type Tab = (typeof TABS)[number][0];

function BackLink(): ReactElement {
  const navigate = usePanel((s) => s.navigate);
  return (
    <a
      href="#/sessions"
      className="link-button"
      onClick={(event) => {
        event.preventDefault();
        navigate('sessions');
      }}
      data-testid="session-back"
    >
      ← All sessions
    </a>
  );
}

/** One session: what it uses, live output, a box to run code, its runs, its files, its limits; stop and restart. */
export function SessionPage({ sessionId }: { sessionId: string }): ReactElement {
  const session = usePanel((s) => s.sessions.find((x) => x.id === sessionId));
  const stopSession = usePanel((s) => s.stopSession);
  const restartSession = usePanel((s) => s.restartSession);
  const setKept = usePanel((s) => s.setKept);
  const pending = usePanel((s) => s.pending.includes(sessionId));
  const lost = usePanel((s) => s.link === 'lost');
  const [tab, setTab] = useState<Tab>('history');
  const [confirm, setConfirm] = useState<'stop' | 'restart' | undefined>();
  const now = useNow();
  const pendingChanges = usePendingChanges(sessionId, session?.folders.some((f) => f.mode === 'review') === true);

  if (!session) {
    return (
      <section data-testid="session-page" data-session-id={sessionId} aria-labelledby="session-title">
        <BackLink />
        <h1 id="session-title" tabIndex={-1}>
          This session has ended
        </h1>
        <EmptyState testId="session-gone" action={<DownloadNotebookButton sessionId={sessionId} testId="session-notebook" />}>
          Its sandbox was removed. Its runs stay in Activity (and in its notebook), and files it made stay in Artifacts. Start a new
          session from the list.
        </EmptyState>
        <ConsoleView sessionId={sessionId} />
      </section>
    );
  }

  const ended = isEnded(session);
  const ready = (session.state === 'ready' || session.state === 'busy') && !lost;
  // A paused session takes code: running it resumes the session.
  const paused = session.state === 'paused' && !lost;

  return (
    <section data-testid="session-page" data-session-id={sessionId} aria-labelledby="session-title">
      <BackLink />
      <div className="screen-head">
        <div>
          <h1 id="session-title" tabIndex={-1}>
            <span data-testid="session-title">{session.name}</span>
            <span className={`badge badge-${lost ? 'unknown' : session.state}`} data-testid="session-state" data-state={lost ? 'unknown' : session.state}>
              {stateWords(session.state, lost)}
            </span>
          </h1>
          <p className="muted" data-testid="session-summary">
            {session.environmentName ?? LANGUAGE_WORDS[session.language]} · {startedBy(session, true)} ·{' '}
            {formatAge(session.createdAt, now)} · {NETWORK_SHORT[session.network]} · {ISOLATION_WORDS[session.isolation]} isolation
          </p>
          {session.secrets?.length ? (
            <p className="small" data-testid="session-secrets">
              {secretsWords(session.secrets)}
            </p>
          ) : null}
          {ended ? null : (
            <label className="choice" data-testid="session-keep-choice">
              <input
                type="checkbox"
                checked={session.kept}
                disabled={pending || lost}
                onChange={(e) => void setKept(sessionId, e.target.checked)}
                data-testid="session-keep"
              />
              <span>
                Keep this session <span className="muted small">(it stays when Sandpit quits: files and installed packages, not variables)</span>
              </span>
            </label>
          )}
          {paused ? (
            <p className="muted" data-testid="session-paused-note">
              Paused: its sandbox is stopped to free memory. Files and installed packages are kept. Running code resumes it; variables from
              before the pause are gone, so run what rebuilds them.
            </p>
          ) : null}
        </div>
        {ended ? (
          <span className="actions">
            <DownloadNotebookButton sessionId={sessionId} testId="session-notebook" />
          </span>
        ) : (
          <span className="actions">
            <DownloadNotebookButton sessionId={sessionId} testId="session-notebook" />
            <SessionSnapshotActions session={session} blockedBecause={snapshotBlockedBecause(ready, pending, paused)} />
            <button type="button" className="secondary" onClick={() => setConfirm('restart')} disabled={pending || lost} data-testid="session-restart">
              Restart
            </button>
            <button type="button" className="danger" onClick={() => setConfirm('stop')} disabled={pending || lost} data-testid="session-stop">
              {pending ? 'Working…' : 'Stop'}
            </button>
          </span>
        )}
      </div>

      {ended ? null : <SessionGraphs sessionId={sessionId} running={ready} />}
      <BackgroundRuns sessionId={sessionId} />
      {ended ? null : <SessionGrants sessionId={sessionId} />}
      <ConsoleView sessionId={sessionId} />
      {ended ? null : <SnippetBox session={session} disabled={!ready && !paused} />}

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
            {id === 'changes' && pendingChanges.count ? (
              <span className="badge badge-busy" data-testid="session-pending-changes">
                {pendingChanges.count} waiting
              </span>
            ) : null}
          </button>
        ))}
      </div>
      <div className="card" role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`}>
        {tab === 'history' ? <RunHistory sessionId={sessionId} /> : null}
        {tab === 'processes' ? <SessionProcesses sessionId={sessionId} disabled={ended || lost} /> : null}
        {tab === 'preview' ? <SessionPreviews sessionId={sessionId} running={ready} /> : null}
        {tab === 'files' ? <FileBrowser sessionId={sessionId} disabled={!ready} /> : null}
        {tab === 'network' ? <NetworkActivity sessionId={sessionId} {...(session.environment ? { environmentId: session.environment } : {})} /> : null}
        {tab === 'folders' ? <SharedFolders session={session} disabled={ended || lost} /> : null}
        {tab === 'changes' ? <ChangesView sessionId={sessionId} onCount={pendingChanges.refresh} /> : null}
        {tab === 'usage' ? <SessionUsage session={session} now={now} /> : null}
      </div>

      {confirm === 'stop' ? (
        <StopSessionDialog
          name={session.name}
          pendingChanges={pendingChanges.count}
          onClose={() => setConfirm(undefined)}
          onConfirm={() => {
            setConfirm(undefined);
            void stopSession(sessionId);
          }}
        />
      ) : null}
      {confirm === 'restart' ? (
        <ConfirmModal
          title={`Restart “${session.name}”?`}
          testId="confirm-restart"
          confirmLabel="Restart"
          onClose={() => setConfirm(undefined)}
          onConfirm={() => {
            setConfirm(undefined);
            void restartSession(sessionId);
          }}
        >
          <p>Running code is stopped and the session starts fresh: variables are forgotten. Use this when the session is stuck.</p>
        </ConfirmModal>
      ) : null}
    </section>
  );
}

/** Why Snapshot and Fork cannot be used now, in words (undefined: they can). */
function snapshotBlockedBecause(ready: boolean, pending: boolean, paused: boolean): string | undefined {
  if (pending) return 'Snapshot and Fork wait until the session has finished what it is doing.';
  if (ready) return undefined;
  if (paused) return 'Snapshot and Fork need the sandbox running: run code in this session to resume it, then take the snapshot.';
  return 'Snapshot and Fork need the session to be ready.';
}
