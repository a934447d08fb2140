import type { ReactElement } from 'react';
import { useAppStore } from '../../stores/panel-context';
import { ChipInput } from '../environments/chip-input';
import type { SettingsDraft } from './settings-draft';
import { Field, FieldError, SettingsSection } from './settings-section';

/** Where packages come from (builds and installs) and where the "package downloads only" network policy may go. */
export function EgressSection({ draft }: { draft: SettingsDraft }): ReactElement {
  const edit = useAppStore('settings', (s) => s.edit);
  const errors = useAppStore('settings', (s) => s.errors);
  return (
    <SettingsSection
      title="Packages"
      testId="settings-egress"
      intro="Where Sandpit gets Python and JavaScript packages from. A company or offline mirror works too. Sessions with “Package downloads only” may reach these addresses and nothing else."
    >
      <Field
        id="settings-pip-index"
        label="Python packages come from"
        hint="The address of a Python package index (pip). The usual one is https://pypi.org/simple."
        value={draft.pipIndex}
        inputMode="url"
        onChange={(pipIndex) => edit({ pipIndex })}
        error={errors.pipIndex}
      />
      <Field
        id="settings-npm-registry"
        label="JavaScript packages come from"
        hint="The address of an npm registry. The usual one is https://registry.npmjs.org/."
        value={draft.npmRegistry}
        inputMode="url"
        onChange={(npmRegistry) => edit({ npmRegistry })}
        error={errors.npmRegistry}
      />
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
