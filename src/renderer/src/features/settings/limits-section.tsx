import { useState } from 'react';
import type { ReactElement } from 'react';
import { DEFAULT_LIMITS } from '../../../../shared/domain/limits';
import type { PartialLimits } from '../../../../shared/domain/limits';
import type { SettingsView } from '../../../../shared/domain/settings';
import { useAppStore } from '../../stores/panel-context';
import { Field, SettingsSection, parseNumber } from './settings-section';

interface LimitsText {
  memoryMb: string;
  cpus: string;
  timeoutSeconds: string;
  workspaceMb: string;
  pids: string;
  pool: string;
}

function fromView(view: SettingsView): LimitsText {
  const l = view.defaultLimits;
  const s = (n: number | undefined): string => (n === undefined ? '' : String(n));
  return {
    memoryMb: s(l.memoryMb),
    cpus: s(l.cpus),
    timeoutSeconds: l.timeoutMs === undefined ? '' : String(l.timeoutMs / 1_000),
    workspaceMb: s(l.workspaceMb),
    pids: s(l.pids),
    pool: String(view.poolSize),
  };
}

/** The limits as a settings change, or the first field that is not a number. */
export function limitsPatch(text: LimitsText): { limits: PartialLimits; poolSize: number } | { invalid: string } {
  const limits: PartialLimits = {};
  const fields: [keyof PartialLimits, string, string, number][] = [
    ['memoryMb', text.memoryMb, 'Memory', 1],
    ['cpus', text.cpus, 'Processor cores', 1],
    ['timeoutMs', text.timeoutSeconds, 'Time per run', 1_000],
    ['workspaceMb', text.workspaceMb, 'Workspace size', 1],
    ['pids', text.pids, 'Processes', 1],
  ];
  for (const [key, raw, label, scale] of fields) {
    const n = parseNumber(raw);
    if (n === undefined) continue;
    if (!Number.isFinite(n) || n <= 0) return { invalid: `${label} must be a positive number.` };
    limits[key] = key === 'cpus' ? n : Math.round(n * scale);
  }
  const pool = parseNumber(text.pool) ?? 0;
  if (!Number.isInteger(pool) || pool < 0) return { invalid: 'Ready sandboxes must be a whole number, 0 or more.' };
  return { limits, poolSize: pool };
}

/** Default limits of new sessions and the warm pool size. */
export function LimitsSection({ view }: { view: SettingsView }): ReactElement {
  const update = useAppStore('settings', (s) => s.update);
  const [text, setText] = useState(() => fromView(view));
  const change = (patch: Partial<LimitsText>): void => setText((t) => ({ ...t, ...patch }));
  const dirty = JSON.stringify(text) !== JSON.stringify(fromView(view));
  return (
    <SettingsSection
      title="Limits of new sessions"
      testId="settings-limits"
      intro="What one session may use. Empty fields keep Sandpit’s defaults. Environments can set their own."
      dirty={dirty}
      onSave={async () => {
        const patch = limitsPatch(text);
        if ('invalid' in patch) return patch.invalid;
        return update({ defaultLimits: patch.limits, poolSize: patch.poolSize });
      }}
    >
      <div className="field-row">
        <Field
          id="settings-memory"
          label="Memory (MB)"
          value={text.memoryMb}
          placeholder={String(DEFAULT_LIMITS.memoryMb)}
          inputMode="numeric"
          onChange={(memoryMb) => change({ memoryMb })}
        />
        <Field
          id="settings-cpus"
          label="Processor cores"
          value={text.cpus}
          placeholder={String(DEFAULT_LIMITS.cpus)}
          inputMode="decimal"
          onChange={(cpus) => change({ cpus })}
        />
        <Field
          id="settings-timeout"
          label="Time per run (seconds)"
          value={text.timeoutSeconds}
          placeholder={String(DEFAULT_LIMITS.timeoutMs / 1_000)}
          inputMode="decimal"
          onChange={(timeoutSeconds) => change({ timeoutSeconds })}
        />
        <Field
          id="settings-workspace"
          label="Workspace (MB)"
          value={text.workspaceMb}
          placeholder={String(DEFAULT_LIMITS.workspaceMb)}
          inputMode="numeric"
          onChange={(workspaceMb) => change({ workspaceMb })}
        />
        <Field
          id="settings-pids"
          label="Processes"
          value={text.pids}
          placeholder={String(DEFAULT_LIMITS.pids)}
          inputMode="numeric"
          onChange={(pids) => change({ pids })}
        />
      </div>
      <Field
        id="settings-pool"
        label="Ready sandboxes kept waiting"
        hint="Sandpit keeps this many sandboxes started in advance for each environment in use, so a new session is ready at once. Each uses some memory. 0 turns this off."
        value={text.pool}
        inputMode="numeric"
        onChange={(pool) => change({ pool })}
      />
    </SettingsSection>
  );
}
