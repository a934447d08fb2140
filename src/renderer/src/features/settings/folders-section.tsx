import type { ReactElement } from 'react';
import { useAppStore } from '../../stores/panel-context';
import { ChipInput } from '../environments/chip-input';
import type { SettingsDraft } from './settings-draft';
import { FieldError, SettingsSection } from './settings-section';

/** Folders never shared with a session (on top of the system folders, the home folder and Sandpit's own). */
export function FoldersSection({ draft }: { draft: SettingsDraft }): ReactElement {
  const edit = useAppStore('settings', (s) => s.edit);
  const errors = useAppStore('settings', (s) => s.errors);
  return (
    <SettingsSection
      title="Shared folders"
      testId="settings-folders"
      intro="You can share a folder of this computer with a session (on its Shared folders tab). Never shared: the whole disk, your home folder itself, system folders, Sandpit's own data folder, the folder of the Docker socket — and the folders below, with anything inside them."
    >
      <ChipInput
        id="settings-protected-folders"
        label="Never share"
        hint="Folders that hold keys, passwords or settings. ~ is your home folder. Type one and press Enter."
        chips={draft.protectedFolders}
        onChange={(protectedFolders) => edit({ protectedFolders })}
        placeholder="~/.ssh"
        testId="settings-protected-folders"
      />
      <FieldError id="settings-protected-folders" error={errors.protectedFolders} />
    </SettingsSection>
  );
}
