import { useEffect } from 'react';
import type { ReactElement } from 'react';
import { Modal } from '../../components/modal';
import { plural } from '../../lib/format';
import { useAppStore, usePanel } from '../../stores/panel-context';

/** Asks before leaving Settings with changes that are not saved (and the browser asks before closing the tab). */
export function LeaveGuard(): ReactElement | null {
  const pendingRoute = usePanel((s) => s.pendingRoute);
  const blocked = usePanel((s) => s.blocked);
  const confirmLeave = usePanel((s) => s.confirmLeave);
  const cancelLeave = usePanel((s) => s.cancelLeave);
  const changed = useAppStore('settings', (s) => s.changed);
  const saving = useAppStore('settings', (s) => s.saving);
  const discard = useAppStore('settings', (s) => s.discard);
  const save = useAppStore('settings', (s) => s.save);

  useEffect(() => {
    if (!blocked) return undefined;
    const ask = (event: BeforeUnloadEvent): void => {
      event.preventDefault();
    };
    window.addEventListener('beforeunload', ask);
    return () => window.removeEventListener('beforeunload', ask);
  }, [blocked]);

  if (!pendingRoute) return null;
  return (
    <Modal
      title="Leave without saving?"
      testId="leave-guard"
      closeLabel="Stay here"
      onClose={cancelLeave}
      actions={
        <>
          <button
            type="button"
            className="secondary danger-text"
            onClick={() => {
              discard();
              confirmLeave();
            }}
            data-testid="leave-guard-discard"
          >
            Discard changes
          </button>
          <button
            type="button"
            disabled={saving}
            onClick={() => {
              void save().then((ok) => (ok ? confirmLeave() : cancelLeave()));
            }}
            data-testid="leave-guard-save"
          >
            {saving ? 'Saving…' : 'Save and leave'}
          </button>
        </>
      }
    >
      <p>
        You changed {plural(changed, 'setting')} on this screen and did not save {changed === 1 ? 'it' : 'them'}. If you leave now,{' '}
        {changed === 1 ? 'that change is' : 'those changes are'} lost.
      </p>
    </Modal>
  );
}
