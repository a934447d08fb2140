import type { ReactElement } from 'react';
import { ConfirmModal } from '../../components/modal';

/** Asks before a session is stopped (the same question from the list and from the session's page). */
export function StopSessionDialog({ name, onConfirm, onClose, pendingChanges }: { name: string; onConfirm: () => void; onClose: () => void; pendingChanges?: number | undefined }): ReactElement {
  return (
    <ConfirmModal title={`Stop “${name}”?`} testId="confirm-stop" confirmLabel="Stop session" danger onClose={onClose} onConfirm={onConfirm}>
      <p>The sandbox is removed with its variables and files. Files already copied to Artifacts, and the record in Activity, are kept.</p>
      {pendingChanges ? (
        <p className="warn" data-testid="confirm-stop-pending">
          {pendingChanges === 1 ? '1 change' : `${pendingChanges} changes`} to your folders {pendingChanges === 1 ? 'is' : 'are'} still waiting for your OK: stopping the session
          discards {pendingChanges === 1 ? 'it' : 'them'}. To keep any, apply {pendingChanges === 1 ? 'it' : 'them'} first (the session’s Changes tab).
        </p>
      ) : null}
    </ConfirmModal>
  );
}
