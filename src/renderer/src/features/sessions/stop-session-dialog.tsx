import type { ReactElement } from 'react';
import { ConfirmModal } from '../../components/modal';

/** Asks before a session is stopped (the same question from the list and from the session's page). */
export function StopSessionDialog({ name, onConfirm, onClose }: { name: string; onConfirm: () => void; onClose: () => void }): ReactElement {
  return (
    <ConfirmModal title={`Stop “${name}”?`} testId="confirm-stop" confirmLabel="Stop session" danger onClose={onClose} onConfirm={onConfirm}>
      <p>The sandbox is removed with its variables and files. Files already copied to Artifacts, and the record in Activity, are kept.</p>
    </ConfirmModal>
  );
}
