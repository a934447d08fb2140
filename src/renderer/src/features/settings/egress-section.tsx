import { useState } from 'react';
import type { ReactElement } from 'react';
import type { SettingsView } from '../../../../shared/domain/settings';
import { useAppStore } from '../../stores/panel-context';
import { ChipInput } from '../environments/chip-input';
import { Field, SettingsSection } from './settings-section';

/** Where the "package downloads only" network policy may go: the package indexes and extra hosts. */
export function EgressSection({ view }: { view: SettingsView }): ReactElement {
  const update = useAppStore('settings', (s) => s.update);
  const [pip, setPip] = useState(view.egress.pipIndexUrl);
  const [npm, setNpm] = useState(view.egress.npmRegistryUrl);
  const [hosts, setHosts] = useState(view.egress.extraHosts);
  const dirty =
    pip !== view.egress.pipIndexUrl ||
    npm !== view.egress.npmRegistryUrl ||
    JSON.stringify(hosts) !== JSON.stringify(view.egress.extraHosts);
  return (
    <SettingsSection
      title="Package downloads"
      testId="settings-egress"
      intro="Sessions with “Package downloads only” may reach these addresses and nothing else. A private or offline mirror works too."
      dirty={dirty}
      onSave={() => update({ egress: { pipIndexUrl: pip.trim(), npmRegistryUrl: npm.trim(), extraHosts: hosts } })}
    >
      <Field id="settings-pip-index" label="Python package index (pip)" value={pip} inputMode="url" onChange={setPip} />
      <Field
        id="settings-npm-registry"
        label="JavaScript package registry (npm)"
        value={npm}
        inputMode="url"
        onChange={setNpm}
      />
      <ChipInput
        id="settings-extra-hosts"
        label="Extra hosts"
        hint="More host names these sessions may reach, e.g. files.example.org or *.example.org. Type one and press Enter."
        chips={hosts}
        onChange={setHosts}
        placeholder="files.example.org"
        testId="settings-extra-hosts"
      />
    </SettingsSection>
  );
}
