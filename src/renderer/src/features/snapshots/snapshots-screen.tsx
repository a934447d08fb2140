import { useState } from 'react';
import type { ReactElement } from 'react';
import type { Snapshot } from '../../../../shared/domain/snapshot';
import { ConfirmModal } from '../../components/modal';
import { EmptyState, LoadProblem } from '../../components/empty-state';
import { LANGUAGE_WORDS, formatAge, formatBytes } from '../../lib/format';
import { useNow } from '../../lib/use-now';
import { useClient } from '../../stores/panel-context';
import { plainError } from '../../stores/panel-store';
import { RestoreDialog } from './restore-dialog';
import { useSnapshots } from './use-snapshots';

/** Saved copies of sessions (files, installed packages, the code that ran): restore one, or delete it. */
export function SnapshotsScreen(): ReactElement {
  const client = useClient();
  const list = useSnapshots();
  const now = useNow();
  const [restoring, setRestoring] = useState<Snapshot | undefined>();
  const [deleting, setDeleting] = useState<Snapshot | undefined>();
  const [problem, setProblem] = useState<string | undefined>();

  const remove = async (snapshot: Snapshot): Promise<void> => {
    setProblem(undefined);
    try {
      await client.call('snapshots.delete', { snapshotId: snapshot.id });
    } catch (error) {
      setProblem(plainError(error));
    }
    await list.reload();
  };

  return (
    <section data-testid="snapshots-screen" aria-labelledby="snapshots-title">
      <div className="screen-head">
        <div>
          <h1 id="snapshots-title" tabIndex={-1}>
            Snapshots
          </h1>
          <p className="muted">
            Saved copies of sessions: their files, installed packages and the code that ran. Start a new session from one at any time.
            {list.status === 'ready' && list.snapshots.length > 0 ? ` They use ${formatBytes(list.storedBytes)} on this computer (files they share are stored once).` : ''}
          </p>
        </div>
        <span className="actions">
          <button type="button" className="secondary" onClick={() => void list.reload()} data-testid="snapshots-refresh">
            Refresh
          </button>
        </span>
      </div>
      {list.status === 'error' && list.problem ? <LoadProblem testId="snapshots-problem" message={list.problem} retry={() => void list.reload()} /> : null}
      {problem ? (
        <p className="error-text" role="alert" data-testid="snapshots-action-problem">
          {problem}
        </p>
      ) : null}
      {list.status === 'loading' ? <p className="muted">Loading snapshots…</p> : null}
      {list.status === 'ready' && list.snapshots.length === 0 ? (
        <EmptyState testId="snapshots-empty">
          No snapshots yet. Open a session and press Snapshot to save a copy of it, or ask your assistant to “snapshot the session before trying that”.
        </EmptyState>
      ) : null}
      {list.snapshots.length > 0 ? (
        <ul className="list card" data-testid="snapshot-list">
          {list.snapshots.map((s) => (
            <li key={s.id} className="list-row" data-testid="snapshot-row" data-snapshot-id={s.id}>
              <span className="row-main">
                <span className="row-title">
                  <strong data-testid="snapshot-name">{s.name}</strong>
                  {s.shared ? null : <span className="badge">Taken by an assistant</span>}
                </span>
                <span className="muted small" data-testid="snapshot-facts">
                  <span data-testid="snapshot-size">{formatBytes(s.sizeBytes)}</span> · {s.files} file{s.files === 1 ? '' : 's'}
                  {s.packages.length > 0 ? ` · packages: ${s.packages.join(', ')}` : ''} · {s.runs} run{s.runs === 1 ? '' : 's'} of code ·{' '}
                  {s.environmentName ?? LANGUAGE_WORDS[s.language]} · from “{s.sessionName}” ·{' '}
                  <time dateTime={s.createdAt} title={new Date(s.createdAt).toLocaleString()} data-testid="snapshot-time">
                    {formatAge(s.createdAt, now)}
                  </time>
                </span>
                {s.skipped.length > 0 ? (
                  <span className="muted small">Left out (links and special files are never copied): {s.skipped.join(', ')}</span>
                ) : null}
                {s.sharedFoldersLeftOut.length > 0 ? (
                  <span className="muted small" data-testid="snapshot-folders-left-out">
                    Shared folders are not copied (they are your computer&apos;s files): {s.sharedFoldersLeftOut.join(', ')}
                  </span>
                ) : null}
                {s.reviewFolders.length > 0 ? (
                  <span className="muted small" data-testid="snapshot-review-folders">
                    Changes waiting for your OK, kept with the snapshot:{' '}
                    {s.reviewFolders.map((f) => `${f.mountPath} (${f.changes})`).join(', ')}
                  </span>
                ) : null}
              </span>
              <span className="actions">
                <button type="button" className="secondary" onClick={() => setRestoring(s)} data-testid="snapshot-restore">
                  Restore
                </button>
                <button type="button" className="danger" onClick={() => setDeleting(s)} data-testid="snapshot-delete">
                  Delete
                </button>
              </span>
            </li>
          ))}
        </ul>
      ) : null}
      {restoring ? (
        <RestoreDialog
          title={`Restore “${restoring.name}”?`}
          what="A new session starts with the snapshot's files and installed packages, in the same environment and with the same limits."
          confirmLabel="Restore"
          testId="restore-dialog"
          start={(replay) => client.call('snapshots.restore', { snapshot: restoring.id, replay })}
          onClose={() => setRestoring(undefined)}
        />
      ) : null}
      {deleting ? (
        <ConfirmModal
          title={`Delete “${deleting.name}”?`}
          testId="confirm-delete-snapshot"
          confirmLabel="Delete"
          danger
          onClose={() => setDeleting(undefined)}
          onConfirm={() => {
            const target = deleting;
            setDeleting(undefined);
            void remove(target);
          }}
        >
          <p>The saved copy is removed from this computer. Sessions started from it keep running.</p>
        </ConfirmModal>
      ) : null}
    </section>
  );
}
