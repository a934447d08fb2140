import { useState } from 'react';
import type { ReactElement } from 'react';
import type { SettingsView } from '../../../../shared/domain/settings';
import { CopyButton } from '../../components/copy-button';
import { useAppStore } from '../../stores/panel-context';
import { Field, SettingsSection, parseNumber } from './settings-section';

/** Docker endpoint, port, data folder (read-only) and how long the activity log keeps runs. */
export function SystemSection({ view }: { view: SettingsView }): ReactElement {
  const update = useAppStore('settings', (s) => s.update);
  const [docker, setDocker] = useState(view.dockerHost ?? '');
  const [port, setPort] = useState(String(view.port));
  const [retention, setRetention] = useState(String(view.auditRetentionDays));
  const dirty =
    docker !== (view.dockerHost ?? '') || port !== String(view.port) || retention !== String(view.auditRetentionDays);
  return (
    <SettingsSection
      title="System"
      testId="settings-system"
      dirty={dirty}
      onSave={async () => {
        const days = parseNumber(retention);
        if (days === undefined || !Number.isInteger(days) || days < 0)
          return 'Keep runs for a whole number of days (0 = forever).';
        const portNumber = parseNumber(port);
        if (portNumber === undefined || !Number.isInteger(portNumber)) return 'The port must be a whole number.';
        return update({
          dockerHost: docker.trim() === '' ? null : docker.trim(),
          port: portNumber,
          auditRetentionDays: days,
        });
      }}
    >
      <Field
        id="settings-docker-host"
        label="Docker address"
        hint="Leave empty to find Docker by itself (DOCKER_HOST, else the usual local socket). Takes effect after Sandpit restarts."
        value={docker}
        placeholder="unix:///var/run/docker.sock"
        onChange={setDocker}
      />
      <Field
        id="settings-port"
        label="Port of the local server"
        hint="Assistants connecting over HTTP use it. Takes effect after Sandpit restarts."
        value={port}
        inputMode="numeric"
        onChange={setPort}
      />
      <Field
        id="settings-retention"
        label="Keep the activity log for (days)"
        hint="Older runs are removed from the log; 0 keeps everything forever."
        value={retention}
        inputMode="numeric"
        onChange={setRetention}
      />
      <div className="field">
        <span className="label">Data folder</span>
        <p className="muted small">
          The token, settings, activity log and artifacts live here. It cannot be changed from the panel.
        </p>
        <div className="kv">
          <code data-testid="settings-data-folder">{view.dataFolder}</code>
          <CopyButton text={view.dataFolder} />
        </div>
      </div>
    </SettingsSection>
  );
}
