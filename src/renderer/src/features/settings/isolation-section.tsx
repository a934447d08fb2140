import type { ReactElement } from 'react';
import { ISOLATION_LEVELS } from '../../../../shared/domain/isolation';
import { ISOLATION_EXPLAINED } from '../../lib/isolation-words';
import { useAppStore, usePanel } from '../../stores/panel-context';
import type { SettingsDraft } from './settings-draft';
import { FieldError, SettingsSection } from './settings-section';

/** How strongly new sessions are kept from the computer, unless their environment chooses. */
export function IsolationSection({ draft }: { draft: SettingsDraft }): ReactElement {
  const edit = useAppStore('settings', (s) => s.edit);
  const error = useAppStore('settings', (s) => s.errors.isolation);
  const runtimes = usePanel((s) => s.engine?.runtimes);
  const gvisor = runtimes?.some((r) => r.startsWith('runsc'));
  return (
    <SettingsSection
      title="Isolation"
      testId="settings-isolation"
      intro="How strongly sessions are kept apart from this computer. Environments can choose their own; this is for the others."
    >
      <fieldset className="choices">
        <legend className="label">Sessions run with</legend>
        {ISOLATION_LEVELS.map((level) => (
          <label key={level} className="choice choice-block">
            <input
              type="radio"
              name="settings-isolation"
              checked={draft.isolation === level}
              onChange={() => edit({ isolation: level })}
              data-testid={`settings-isolation-${level}`}
            />
            <span>
              <strong>{ISOLATION_EXPLAINED[level].title}</strong>
              {level === 'standard' ? <span className="badge">Default</span> : null}
              <span className="muted small block">{ISOLATION_EXPLAINED[level].explain}</span>
              {level === 'strong' && runtimes && !gvisor ? (
                <span className="small block warn-text">This Docker engine does not have gVisor: sessions with strong isolation would not start.</span>
              ) : null}
            </span>
          </label>
        ))}
      </fieldset>
      <FieldError id="settings-isolation" error={error} />
    </SettingsSection>
  );
}
