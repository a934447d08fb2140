import { useState } from 'react';
import type { ReactElement } from 'react';
import type { SessionInfo } from '../../../../shared/domain/session';
import { Modal } from '../../components/modal';
import { formatBytes } from '../../lib/format';
import { useClient, usePanel } from '../../stores/panel-context';
import { plainError } from '../../stores/panel-store';
import { RestoreDialog } from './restore-dialog';
import { useSnapshots } from './use-snapshots';

type Open = 'snapshot' | 'restore' | 'fork' | undefined;

/** The session page's Snapshot, Restore and Fork buttons and their dialogs; `blockedBecause` says why Snapshot and Fork are off. */
export function SessionSnapshotActions({ session, blockedBecause }: { session: SessionInfo; blockedBecause: string | undefined }): ReactElement {
  const [open, setOpen] = useState<Open>();
  const disabled = blockedBecause !== undefined;
  const client = useClient();
  return (
    <>
      <button type="button" className="secondary" onClick={() => setOpen('snapshot')} disabled={disabled} title={blockedBecause} data-testid="session-snapshot">
        Snapshot
      </button>
      <button type="button" className="secondary" onClick={() => setOpen('restore')} data-testid="session-restore-snapshot">
        Restore…
      </button>
      <button type="button" className="secondary" onClick={() => setOpen('fork')} disabled={disabled} title={blockedBecause} data-testid="session-fork">
        Fork
      </button>
      {blockedBecause ? (
        <span className="muted small" data-testid="session-snapshot-blocked">
          {blockedBecause}
        </span>
      ) : null}
      {open === 'snapshot' ? <SnapshotDialog session={session} onClose={() => setOpen(undefined)} /> : null}
      {open === 'restore' ? <PickSnapshotDialog session={session} onClose={() => setOpen(undefined)} /> : null}
      {open === 'fork' ? (
        <RestoreDialog
          title={`Fork “${session.name}”?`}
          what="A new session starts with a copy of this one's files and installed packages. From then on, each changes on its own: try something in one and keep the other as it was."
          confirmLabel="Fork"
          testId="fork-dialog"
          start={(replay) => client.call('sessions.fork', { sessionId: session.id, replay })}
          onClose={() => setOpen(undefined)}
        />
      ) : null}
    </>
  );
}

function SnapshotDialog({ session, onClose }: { session: SessionInfo; onClose: () => void }): ReactElement {
  const client = useClient();
  const navigate = usePanel((s) => s.navigate);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  const [taken, setTaken] = useState<{ name: string; size: number; files: number } | undefined>();
  const take = async (): Promise<void> => {
    setBusy(true);
    setProblem(undefined);
    try {
      const s = await client.call('snapshots.create', { sessionId: session.id, ...(name.trim() ? { name: name.trim() } : {}) });
      setTaken({ name: s.name, size: s.sizeBytes, files: s.files });
    } catch (error) {
      setProblem(plainError(error));
    } finally {
      setBusy(false);
    }
  };
  if (taken) {
    return (
      <Modal
        title="Snapshot saved"
        testId="snapshot-done"
        closeLabel="Close"
        onClose={onClose}
        actions={
          <button
            type="button"
            onClick={() => {
              onClose();
              navigate('snapshots');
            }}
            data-testid="snapshot-done-open"
          >
            See snapshots
          </button>
        }
      >
        <p data-testid="snapshot-done-text">
          “{taken.name}” holds {taken.files} file{taken.files === 1 ? '' : 's'}, the installed packages and the code that ran ({formatBytes(taken.size)}).
        </p>
      </Modal>
    );
  }
  return (
    <Modal
      title={`Snapshot “${session.name}”`}
      testId="snapshot-dialog"
      onClose={onClose}
      actions={
        <button type="button" onClick={() => void take()} disabled={busy} data-testid="snapshot-dialog-confirm">
          {busy ? 'Saving…' : 'Save snapshot'}
        </button>
      }
    >
      <p>Saves a copy of this session's files, its installed packages and the code that ran, so you can start a new session from it later.</p>
      <label className="field">
        <span>Name (optional)</span>
        <input value={name} maxLength={64} onChange={(e) => setName(e.target.value)} placeholder="e.g. before cleaning" data-testid="snapshot-dialog-name" />
      </label>
      {problem ? (
        <p className="error-text" role="alert" data-testid="snapshot-dialog-problem">
          {problem}
        </p>
      ) : null}
    </Modal>
  );
}

/** Restore from the session page: this session's snapshots first, then the others. */
function PickSnapshotDialog({ session, onClose }: { session: SessionInfo; onClose: () => void }): ReactElement {
  const client = useClient();
  const list = useSnapshots();
  const [picked, setPicked] = useState<string | undefined>();
  const ordered = [...list.snapshots.filter((s) => s.sessionId === session.id), ...list.snapshots.filter((s) => s.sessionId !== session.id)];
  const chosen = ordered.find((s) => s.id === picked);
  if (chosen) {
    return (
      <RestoreDialog
        title={`Restore “${chosen.name}”?`}
        what="A new session starts with the snapshot's files and installed packages. This session stays as it is."
        confirmLabel="Restore"
        testId="restore-dialog"
        start={(replay) => client.call('snapshots.restore', { snapshot: chosen.id, replay })}
        onClose={onClose}
      />
    );
  }
  return (
    <Modal title="Restore a snapshot" testId="pick-snapshot" onClose={onClose}>
      {list.status === 'loading' ? <p className="muted">Loading snapshots…</p> : null}
      {list.status === 'error' ? <p className="error-text">{list.problem}</p> : null}
      {list.status === 'ready' && ordered.length === 0 ? (
        <p data-testid="pick-snapshot-empty">No snapshots yet. Use Snapshot to save one of this session first.</p>
      ) : null}
      <ul className="list">
        {ordered.map((s) => (
          <li key={s.id} className="list-row" data-testid="pick-snapshot-row" data-snapshot-id={s.id}>
            <span className="row-main">
              <span className="row-title">{s.name}</span>
              <span className="muted small">
                {s.files} file{s.files === 1 ? '' : 's'} · {formatBytes(s.sizeBytes)} · {new Date(s.createdAt).toLocaleString()}
              </span>
            </span>
            <button type="button" className="secondary" onClick={() => setPicked(s.id)} data-testid="pick-snapshot-choose">
              Restore
            </button>
          </li>
        ))}
      </ul>
    </Modal>
  );
}
