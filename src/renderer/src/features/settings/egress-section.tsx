import type { ReactElement } from 'react';
import { useAppStore } from '../../stores/panel-context';
import { ChipInput } from '../environments/chip-input';
import { languageLabel, languagesOf } from '../../../../shared/domain/languages';
import { INDEX_SETTINGS, INDEX_SETTING_ENTRIES } from '../../../../shared/domain/package-managers';
import type { SettingsDraft } from './settings-draft';
import { Field, FieldError, SettingsSection } from './settings-section';

/** The languages whose packages have an index setting, as a person reads them: "Python and JavaScript". */
const languageWords = ((labels: string[]): string => (labels.length > 1 ? `${labels.slice(0, -1).join(', ')} and ${labels.at(-1)}` : (labels[0] ?? '')))(
  INDEX_SETTINGS.map((setting) => languageLabel(languagesOf(INDEX_SETTING_ENTRIES[setting].manager)[0]!)),
);

/** Where packages come from (builds and installs) and where the "package downloads only" network policy may go. */
export function EgressSection({ draft }: { draft: SettingsDraft }): ReactElement {
  const edit = useAppStore('settings', (s) => s.edit);
  const errors = useAppStore('settings', (s) => s.errors);
  return (
    <SettingsSection
      title="Packages"
      testId="settings-egress"
      intro={`Where Sandpit gets ${languageWords} packages from. A company or offline mirror works too. Sessions with “Package downloads only” may reach these addresses and nothing else.`}
    >
      {INDEX_SETTINGS.map((setting) => (
        <Field
          key={setting}
          id={`settings-${INDEX_SETTING_ENTRIES[setting].manager}-index`}
          label={INDEX_SETTING_ENTRIES[setting].label}
          hint={INDEX_SETTING_ENTRIES[setting].hint}
          value={draft[setting]}
          inputMode="url"
          onChange={(url) => edit({ [setting]: url })}
          error={errors[setting]}
        />
      ))}
      <ChipInput
        id="settings-extra-hosts"
        label="Other sites packages may need"
        hint="Some mirrors keep their files on another site, e.g. files.example.org or *.example.org. Type one and press Enter."
        chips={draft.extraHosts}
        onChange={(extraHosts) => edit({ extraHosts })}
        placeholder="files.example.org"
        testId="settings-extra-hosts"
      />
      <FieldError id="settings-extra-hosts" error={errors.extraHosts} />
    </SettingsSection>
  );
}
