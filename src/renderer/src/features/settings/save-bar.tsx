import { useEffect, useState } from 'react';
import type { ReactElement } from 'react';
import { plural } from '../../lib/format';
import { useAppStore } from '../../stores/panel-context';

/** After a refused save: the first field marked in red comes into view, with the focus. */
function showFirstProblem(): void {
  requestAnimationFrame(() => {
    const field = document.querySelector<HTMLElement>('#main [aria-invalid="true"]');
    field?.scrollIntoView({ block: 'center' });
    field?.focus({ preventScroll: true });
  });
}

/** The one Save of the Settings screen: appears when something changed, stays until saved or discarded. */
export function SaveBar(): ReactElement | null {
  const dirty = useAppStore('settings', (s) => s.dirty);
  const changed = useAppStore('settings', (s) => s.changed);
  const saving = useAppStore('settings', (s) => s.saving);
  const errors = useAppStore('settings', (s) => Object.keys(s.errors).length);
  const saveProblem = useAppStore('settings', (s) => s.saveProblem);
  const savedAt = useAppStore('settings', (s) => s.savedAt);
  const save = useAppStore('settings', (s) => s.save);
  const discard = useAppStore('settings', (s) => s.discard);
  const [justSaved, setJustSaved] = useState(false);

  useEffect(() => {
    if (savedAt === undefined) return undefined;
    setJustSaved(true);
    const timer = setTimeout(() => setJustSaved(false), 4_000);
    return () => clearTimeout(timer);
  }, [savedAt]);

  if (!dirty && !justSaved) return null;
  if (!dirty) {
    return (
      <div className="savebar savebar-done" role="status" data-testid="settings-savebar" data-state="saved">
        <span data-testid="settings-save-result">Saved. The changes are in use now.</span>
      </div>
    );
  }
  return (
    <div className="savebar" role="region" aria-label="Unsaved changes" data-testid="settings-savebar" data-state={errors || saveProblem ? 'refused' : 'dirty'}>
      <span data-testid="settings-save-result" role={errors || saveProblem ? 'alert' : undefined} className={errors || saveProblem ? 'field-error' : undefined}>
        {saveProblem
          ? `Not saved: ${saveProblem}`
          : errors
            ? `Not saved: ${errors === 1 ? 'one field needs' : `${errors} fields need`} a change (marked in red).`
            : `${plural(changed, 'change')} not saved yet.`}
      </span>
      <span className="actions">
        <button type="button" className="secondary" onClick={discard} disabled={saving} data-testid="settings-discard">
          Discard
        </button>
        <button type="button" onClick={() => void save().then((ok) => (ok ? undefined : showFirstProblem()))} disabled={saving} data-testid="settings-save">
          {saving ? 'Saving…' : 'Save changes'}
        </button>
      </span>
    </div>
  );
}
