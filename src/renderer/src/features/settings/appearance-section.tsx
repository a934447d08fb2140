import type { ReactElement } from 'react';
import { useAppStore } from '../../stores/panel-context';
import { THEMES } from './settings-draft';
import type { SettingsDraft, Theme } from './settings-draft';
import { SettingsSection } from './settings-section';

const THEME_WORDS: Record<Theme, string> = {
  system: 'Like this computer',
  light: 'Light',
  dark: 'Dark',
};

/** Light, dark, or like the computer (shown at once as a preview; kept in this browser when saved). */
export function AppearanceSection({ draft }: { draft: SettingsDraft }): ReactElement {
  const edit = useAppStore('settings', (s) => s.edit);
  return (
    <SettingsSection title="Appearance" testId="settings-appearance" intro="How the panel looks. You see the choice at once; Save keeps it for this browser.">
      <fieldset className="choices choices-inline">
        <legend className="label">Colours</legend>
        {THEMES.map((theme) => (
          <label key={theme} className="choice choice-block">
            <input
              type="radio"
              name="settings-theme"
              checked={draft.theme === theme}
              onChange={() => edit({ theme })}
              data-testid={`settings-theme-${theme}`}
            />
            <span>{THEME_WORDS[theme]}</span>
          </label>
        ))}
      </fieldset>
    </SettingsSection>
  );
}
