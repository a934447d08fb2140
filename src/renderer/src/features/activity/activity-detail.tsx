import { useEffect, useState } from 'react';
import type { ReactElement } from 'react';
import type { AuditEntry } from '../../../../shared/domain/audit';
import { TRANSPORT_WORDS } from '../../../../shared/domain/audit-words';
import { Modal } from '../../components/modal';
import { formatDuration, formatTime } from '../../lib/format';
import { useAppStore, useClient } from '../../stores/panel-context';
import { plainError } from '../../stores/panel-store';
import { ArtifactDetail } from '../artifacts/artifact-detail';
import { ReplayComparison } from '../replay/replay-comparison';
import { useSessionName } from '../sessions/session-name';
import { doneWords, runStatusTone } from '../sessions/session-words';
import { FOLDER_MODE_WORDS } from '../../../../shared/domain/shared-folder';

/** One audit row in full: the code, its output, its artifacts, how it ended, and its place in the chain. */
export function ActivityDetail({ id, onClose, onOpen }: { id: number; onClose: () => void; onOpen?: (id: number) => void }): ReactElement {
  const client = useClient();
  const artifacts = useAppStore('artifacts', (s) => s.artifacts);
  const loadArtifacts = useAppStore('artifacts', (s) => s.load);
  const [entry, setEntry] = useState<AuditEntry | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [openSha, setOpenSha] = useState<string | undefined>();
  const sessionName = useSessionName(entry?.sessionId, entry?.sandbox?.sessionName);

  useEffect(() => {
    let live = true;
    client.call('audit.get', { id }).then(
      (got) => {
        if (live) setEntry(got);
      },
      (caught: unknown) => {
        if (live) setError(plainError(caught));
      },
    );
    return () => {
      live = false;
    };
  }, [client, id]);

  useEffect(() => {
    if (entry && entry.artifacts.length > 0) void loadArtifacts();
  }, [entry, loadArtifacts]);

  const openArtifact = openSha ? artifacts.find((a) => a.sha256 === openSha) : undefined;

  return (
    <Modal title={entry ? `What ran at ${formatTime(entry.startedAt)}` : 'What ran'} testId="activity-detail" onClose={onClose} closeLabel="Close" wide>
      {error ? <p className="field-error">{error}</p> : null}
      {!entry && !error ? <p className="muted">Loading…</p> : null}
      {entry ? (
        <div data-testid="activity-detail-body">
          <p>
            <span className={`tone-${runStatusTone(entry.status)}`}>
              <strong>{doneWords(entry.status, entry.durationMs ?? 0)}</strong>
            </span>
          </p>
          {entry.errorMessage ? (
            <pre className="field-error pre-wrap" data-testid="activity-detail-error">
              {entry.errorMessage}
            </pre>
          ) : null}
          <dl className="facts">
            <div>
              <dt>Started</dt>
              <dd>{formatTime(entry.startedAt)}</dd>
            </div>
            <div>
              <dt>Who</dt>
              <dd>
                {entry.client === 'panel' ? 'You, in the panel' : (entry.client ?? '—')}{' '}
                <span className="muted">({TRANSPORT_WORDS[entry.transport] ?? entry.transport})</span>
              </dd>
            </div>
            <div>
              <dt>Session</dt>
              <dd>{sessionName}</dd>
            </div>
            {(entry.sandbox?.secrets?.length ?? 0) > 0 ? (
              <div>
                <dt>Secrets</dt>
                <dd data-testid="activity-detail-secrets">Could use the secrets: {entry.sandbox?.secrets?.join(', ')}</dd>
              </div>
            ) : null}
            {entry.backgroundRun !== undefined ? (
              <div>
                <dt>Background</dt>
                <dd data-testid="activity-detail-background">Ran in the background as {entry.backgroundRun}: the call that started it returned at once, and the assistant fetches the result with get_run</dd>
              </div>
            ) : null}
            {entry.approval ? (
              <div>
                <dt>Approval</dt>
                <dd data-testid="activity-detail-approval">{entry.approval}</dd>
              </div>
            ) : null}
          </dl>
          {entry.replayOf !== undefined || (entry.replays?.length ?? 0) > 0 ? (
            <p className="small" data-testid="activity-detail-replay">
              {entry.replayOf !== undefined ? (
                <>
                  A replay of{' '}
                  <button type="button" className="link-button" onClick={() => onOpen?.(entry.replayOf!)} data-testid="activity-detail-original">
                    row {entry.replayOf}
                  </button>
                  .{' '}
                </>
              ) : null}
              {(entry.replays ?? []).length > 0 ? (
                <>
                  Replayed as{' '}
                  {(entry.replays ?? []).map((replayId, index) => (
                    <span key={replayId}>
                      {index > 0 ? ', ' : ''}
                      <button type="button" className="link-button" onClick={() => onOpen?.(replayId)} data-testid="activity-detail-replayed">
                        row {replayId}
                      </button>
                    </span>
                  ))}
                  .
                </>
              ) : null}
            </p>
          ) : null}
          <ReplayComparison replay={entry} />
          <h3>
            {entry.method === 'packages.install' || entry.method === 'packages.check'
              ? 'Packages'
              : entry.method === 'sessions.runCommand'
                ? 'Command'
                : 'Code'}
          </h3>
          <pre className="content-text" data-testid="activity-detail-code">
            {entry.code}
          </pre>
          {entry.fileContent !== undefined ? (
            <>
              <h3>Content of the file that ran</h3>
              <pre className="content-text">{entry.fileContent}</pre>
            </>
          ) : null}
          <h3>{entry.method === 'packages.install' || entry.method === 'packages.check' ? 'What happened' : 'What it printed'}</h3>
          {entry.stdout || entry.stderr ? (
            <div className="console console-static" data-testid="activity-detail-output">
              {entry.stdout ? <pre className="con-stdout">{entry.stdout}</pre> : null}
              {entry.stdoutTruncated ? <p className="con-note">(output cut short)</p> : null}
              {entry.stderr ? <pre className="con-stderr">{entry.stderr}</pre> : null}
              {entry.stderrTruncated ? <p className="con-note">(error output cut short)</p> : null}
            </div>
          ) : (
            <p className="muted">No output.</p>
          )}
          {entry.result !== undefined && entry.result !== '' ? (
            <>
              <h3>Value of the last line</h3>
              <p className="muted small">
                What {entry.client === 'panel' ? 'the panel' : (entry.client ?? 'the caller')} received as the run’s result.
              </p>
              <pre className="content-text" data-testid="activity-detail-result">
                {entry.result}
              </pre>
            </>
          ) : null}
          <h3>Files it made</h3>
          {entry.artifacts.length === 0 ? (
            <p className="muted">This run made no files.</p>
          ) : (
            <ul className="list" data-testid="activity-detail-artifacts">
              {entry.artifacts.map((sha) => {
                const known = artifacts.find((a) => a.sha256 === sha);
                return (
                  <li key={sha} className="list-row">
                    <span>{known ? known.path : <code>{sha.slice(0, 16)}…</code>}</span>
                    {known ? (
                      <button type="button" className="secondary small" onClick={() => setOpenSha(sha)}>
                        Open
                      </button>
                    ) : null}
                  </li>
                );
              })}
            </ul>
          )}
          {entry.folders?.length ? (
            <div data-testid="activity-detail-folders">
              <h3>Folders of this computer it could reach</h3>
              <ul className="plain-list">
                {entry.folders.map((f) => (
                  <li key={f.mountPath} data-testid="activity-detail-folder" data-mode={f.mode}>
                    <code>{f.hostPath}</code> at <code>{f.mountPath}</code> — {FOLDER_MODE_WORDS[f.mode]}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          <details data-testid="activity-detail-details">
            <summary>Details</summary>
            <dl className="facts">
              <div>
                <dt>Session id</dt>
                <dd>
                  <code>{entry.sessionId ?? '—'}</code>
                  {entry.environment ? ` · environment ${entry.environment}` : ''}
                </dd>
              </div>
              {entry.exitCode !== undefined ? (
                <div>
                  <dt>Exit code</dt>
                  <dd>{entry.exitCode}</dd>
                </div>
              ) : null}
              {entry.errorCode ? (
                <div>
                  <dt>Error code</dt>
                  <dd>
                    <code>{entry.errorCode}</code>
                  </dd>
                </div>
              ) : null}
              {entry.durationMs !== undefined ? (
                <div>
                  <dt>Took</dt>
                  <dd>{formatDuration(entry.durationMs)}</dd>
                </div>
              ) : null}
              <div>
                <dt>Written as row</dt>
                <dd>
                  {entry.openSeq}
                  {entry.closeSeq !== undefined ? ` and ${entry.closeSeq}` : ''}
                </dd>
              </div>
              <div>
                <dt>Check code</dt>
                <dd>
                  <code className="wrap">{entry.closeHash ?? entry.openHash}</code>
                  <span className="muted small block">
                    Each row’s check code is computed from the row and the one before it: changing or removing any row breaks the chain,
                    and “Check again” above finds where.
                  </span>
                </dd>
              </div>
            </dl>
          </details>
        </div>
      ) : null}
      {openArtifact ? <ArtifactDetail artifact={openArtifact} onClose={() => setOpenSha(undefined)} /> : null}
    </Modal>
  );
}
