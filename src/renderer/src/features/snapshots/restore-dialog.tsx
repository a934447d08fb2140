import { useState } from 'react';
import type { ReactElement } from 'react';
import type { RestoredSession } from '../../../../shared/domain/snapshot';
import { Modal } from '../../components/modal';
import { usePanel } from '../../stores/panel-context';
import { plainError } from '../../stores/panel-store';

/**
 * Makes a new session from a snapshot (restore) or from a session (fork), with the choice to run the
 * recorded code again. Opens the new session when done; when the replay stopped, says which run and why first.
 */
export function RestoreDialog({
  title,
  what,
  confirmLabel,
  testId,
  start,
  onClose,
}: {
  title: string;
  what: string;
  confirmLabel: string;
  testId: string;
  start: (replay: boolean) => Promise<RestoredSession>;
  onClose: () => void;
}): ReactElement {
  const navigate = usePanel((s) => s.navigate);
  const [replay, setReplay] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  const [stopped, setStopped] = useState<RestoredSession | undefined>();

  const go = async (): Promise<void> => {
    setBusy(true);
    setProblem(undefined);
    try {
      const restored = await start(replay);
      if (restored.replay && !restored.replay.complete && restored.replay.total > 0) {
        setStopped(restored);
        return;
      }
      onClose();
      navigate('sessions', restored.session.id);
    } catch (error) {
      setProblem(plainError(error));
    } finally {
      setBusy(false);
    }
  };

  if (stopped) {
    return (
      <Modal
        title="The new session is ready, but not all its code ran again"
        testId={`${testId}-stopped`}
        closeLabel="Close"
        onClose={onClose}
        actions={
          <button
            type="button"
            onClick={() => {
              onClose();
              navigate('sessions', stopped.session.id);
            }}
            data-testid={`${testId}-open`}
          >
            Open the new session
          </button>
        }
      >
        <p data-testid={`${testId}-replay-message`}>{stopped.replay?.message}</p>
        {stopped.replay?.failed ? <pre className="content-text">{stopped.replay.failed.code}</pre> : null}
        <p className="muted small">Its files and packages are all there; variables from the runs after the failed one are missing.</p>
      </Modal>
    );
  }

  return (
    <Modal
      title={title}
      testId={testId}
      onClose={onClose}
      actions={
        <button type="button" onClick={() => void go()} disabled={busy} data-testid={`${testId}-confirm`}>
          {busy ? 'Working…' : confirmLabel}
        </button>
      }
    >
      <p>{what}</p>
      <label className="check-line">
        <input type="checkbox" checked={replay} onChange={(e) => setReplay(e.target.checked)} disabled={busy} data-testid={`${testId}-replay`} />
        <span>Run its code again, in order, so its variables are back too (stops at the first run that fails)</span>
      </label>
      {problem ? (
        <p className="error-text" role="alert" data-testid={`${testId}-problem`}>
          {problem}
        </p>
      ) : null}
    </Modal>
  );
}
