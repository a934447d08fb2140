import type { ReactElement } from 'react';
import type { SettingsView } from '../../../../shared/domain/settings';
import { CopyButton } from '../../components/copy-button';
import { useAppStore } from '../../stores/panel-context';
import type { SettingsDraft } from './settings-draft';
import { Field, SettingsSection } from './settings-section';

/** The local server's port, how long the activity log keeps runs, the space snapshots may take, the data folder (read-only). */
export function SystemSection({ draft, view }: { draft: SettingsDraft; view: SettingsView }): ReactElement {
  const edit = useAppStore('settings', (s) => s.edit);
  const errors = useAppStore('settings', (s) => s.errors);
  const restart = view.restartNeeded.includes('port');
  return (
    <SettingsSection title="System" testId="settings-system">
      <Field
        id="settings-retention"
        label="Keep the activity log for (days)"
        hint="Older runs are removed from the log; 0 keeps everything forever."
        value={draft.retention}
        inputMode="numeric"
        onChange={(retention) => edit({ retention })}
        error={errors.retention}
      />
      <Field
        id="settings-snapshot-store"
        label="Space for snapshots (MiB)"
        hint="All snapshots together may take this much of the disk; a snapshot that would need more is refused until you delete older ones. 0 turns snapshots off."
        value={draft.snapshotStore}
        inputMode="numeric"
        onChange={(snapshotStore) => edit({ snapshotStore })}
        error={errors.snapshotStore}
      />
      <Field
        id="settings-background-max"
        label="Longest background run (minutes)"
        hint="An assistant may start long work in the background. Such a run stops after one hour (or after this time, if it is shorter) unless the assistant asks for less, and it may never run longer than this."
        value={draft.backgroundMax}
        inputMode="numeric"
        onChange={(backgroundMax) => edit({ backgroundMax })}
        error={errors.backgroundMax}
      />
      <Field
        id="settings-port"
        label="Port of the local server"
        hint="Assistants that connect over the network address use it. A new port is used the next time Sandpit starts."
        value={draft.port}
        inputMode="numeric"
        onChange={(port) => edit({ port })}
        error={errors.port}
      />
      {restart ? (
        <p className="notice notice-info" role="status" data-testid="settings-restart-needed">
          Sandpit uses port {view.port} the next time it starts; until then it stays where it is.
        </p>
      ) : null}
      <div className="field">
        <span className="label">Data folder</span>
        <p className="muted small">
          Your settings, the activity log, the files runs made and the access keys live here. It cannot be changed from the panel.
        </p>
        <div className="kv">
          <code data-testid="settings-data-folder">{view.dataFolder}</code>
          <CopyButton text={view.dataFolder} />
        </div>
      </div>
    </SettingsSection>
  );
}
