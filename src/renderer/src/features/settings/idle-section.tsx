import type { ReactElement } from 'react';
import { useAppStore } from '../../stores/panel-context';
import type { SettingsDraft } from './settings-draft';
import { Field, FieldError, SettingsSection } from './settings-section';

const ACTIONS: Array<{ value: SettingsDraft['idleAction']; title: string; explain: string }> = [
  { value: 'stop', title: 'Stop it', explain: 'The session ends: its sandbox and files are removed (files it made stay in Artifacts).' },
  {
    value: 'pause',
    title: 'Pause it',
    explain:
      'Its sandbox stops to free memory; files and installed packages are kept, and the next run resumes it within about a second. Variables are not kept (this computer cannot save memory).',
  },
];

/** What happens to a session nobody used for a while (kept sessions are always paused, never stopped). */
export function IdleSection({ draft }: { draft: SettingsDraft }): ReactElement {
  const edit = useAppStore('settings', (s) => s.edit);
  const errors = useAppStore('settings', (s) => s.errors);
  return (
    <SettingsSection
      title="Idle sessions"
      testId="settings-idle"
      intro="When a session is idle for a while, Sandpit stops it or pauses it. Sessions you chose to keep are always paused, never stopped."
    >
      <Field
        id="settings-idle-minutes"
        label="When a session is idle for (minutes)"
        hint="For sessions started from now on; a session an assistant started with its own idle time keeps that."
        value={draft.idleMinutes}
        inputMode="numeric"
        onChange={(idleMinutes) => edit({ idleMinutes })}
        error={errors.idleMinutes}
      />
      <fieldset className="choices">
        <legend className="label">then</legend>
        {ACTIONS.map((action) => (
          <label key={action.value} className="choice choice-block">
            <input
              type="radio"
              name="settings-idle-action"
              checked={draft.idleAction === action.value}
              onChange={() => edit({ idleAction: action.value })}
              data-testid={`settings-idle-action-${action.value}`}
            />
            <span>
              <strong>{action.title}</strong>
              <span className="muted small block">{action.explain}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <FieldError id="settings-idle-action" error={errors.idleAction} />
    </SettingsSection>
  );
}
