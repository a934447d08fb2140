import type { ReactElement } from 'react';
import { DEFAULT_LIMITS } from '../../../../shared/domain/limits';
import { useAppStore } from '../../stores/panel-context';
import type { SettingsDraft } from './settings-draft';
import { Field, SettingsSection } from './settings-section';

/** Default limits of new sessions and the warm pool size. */
export function LimitsSection({ draft }: { draft: SettingsDraft }): ReactElement {
  const edit = useAppStore('settings', (s) => s.edit);
  const errors = useAppStore('settings', (s) => s.errors);
  return (
    <SettingsSection
      title="Limits of new sessions"
      testId="settings-limits"
      intro="What one session may use. Empty fields keep Sandpit’s defaults. Environments can set their own."
    >
      <div className="field-row">
        <Field
          id="settings-memory"
          label="Memory (MB)"
          value={draft.memoryMb}
          placeholder={String(DEFAULT_LIMITS.memoryMb)}
          inputMode="numeric"
          onChange={(memoryMb) => edit({ memoryMb })}
          error={errors.memoryMb}
        />
        <Field
          id="settings-cpus"
          label="Processor cores"
          value={draft.cpus}
          placeholder={String(DEFAULT_LIMITS.cpus)}
          inputMode="decimal"
          onChange={(cpus) => edit({ cpus })}
          error={errors.cpus}
        />
        <Field
          id="settings-timeout"
          label="Time per run (seconds)"
          value={draft.timeoutSeconds}
          placeholder={String(DEFAULT_LIMITS.timeoutMs / 1_000)}
          inputMode="decimal"
          onChange={(timeoutSeconds) => edit({ timeoutSeconds })}
          error={errors.timeoutSeconds}
        />
        <Field
          id="settings-workspace"
          label="Workspace (MB)"
          value={draft.workspaceMb}
          placeholder={String(DEFAULT_LIMITS.workspaceMb)}
          inputMode="numeric"
          onChange={(workspaceMb) => edit({ workspaceMb })}
          error={errors.workspaceMb}
        />
        <Field
          id="settings-pids"
          label="Processes"
          value={draft.pids}
          placeholder={String(DEFAULT_LIMITS.pids)}
          inputMode="numeric"
          onChange={(pids) => edit({ pids })}
          error={errors.pids}
        />
      </div>
      <Field
        id="settings-pool"
        label="Ready sandboxes kept waiting"
        hint="Sandpit keeps this many sandboxes started in advance for each environment in use, so a new session is ready at once. Each uses some memory. 0 turns this off."
        value={draft.pool}
        inputMode="numeric"
        onChange={(pool) => edit({ pool })}
        error={errors.pool}
      />
    </SettingsSection>
  );
}
