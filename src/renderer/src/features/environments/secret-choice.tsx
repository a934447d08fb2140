import { useEffect, useState } from 'react';
import type { ReactElement } from 'react';
import type { SandpitClient } from '../../../../shared/api/client';
import type { SecretInfo } from '../../../../shared/domain/secret';
import { useClient } from '../../stores/panel-context';
import { plainError } from '../../stores/panel-store';

/**
 * The secrets an environment's sessions may use (issue 18), in its form: one box per secret of Settings → Secrets.
 * Values are never here; a secret is added or changed in Settings → Secrets. `chosen` is undefined until the person
 * changes a box (then only what changed is saved, once the environment is).
 */
export function SecretChoice({ environmentId, chosen, onChange }: { environmentId?: string; chosen: string[] | undefined; onChange: (names: string[]) => void }): ReactElement {
  const client = useClient();
  const [secrets, setSecrets] = useState<SecretInfo[] | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  useEffect(() => {
    let live = true;
    const load = (): void => {
      client.call('secrets.list').then(
        (list) => {
          if (live) setSecrets(list.secrets);
        },
        (error: unknown) => {
          if (live) setProblem(plainError(error));
        },
      );
    };
    load();
    const stop = client.subscribe((event) => {
      if (event.name === 'secrets.changed') load();
    });
    return () => {
      live = false;
      stop();
    };
  }, [client]);
  const current = chosen ?? attachedTo(secrets ?? [], environmentId);

  return (
    <fieldset className="choices" data-testid="env-secrets">
      <legend className="label">Secrets its sessions may use</legend>
      <p className="muted small">The sandbox sees only a stand-in; Sandpit puts the value into requests to the secret's own hosts. Add or change a secret in Settings → Secrets.</p>
      {problem ? (
        <p className="field-error" role="alert">
          {problem}
        </p>
      ) : null}
      {secrets?.length === 0 ? <p className="muted small" data-testid="env-secrets-none">No secrets yet: add one in Settings → Secrets.</p> : null}
      {secrets?.map((s) => (
        <label key={s.name} className="choice">
          <input
            type="checkbox"
            checked={current.includes(s.name)}
            onChange={(e) => onChange(e.target.checked ? [...current, s.name] : current.filter((n) => n !== s.name))}
            data-testid={`env-secret-${s.name}`}
          />{' '}
          <span>
            <strong>{s.name}</strong> <span className="muted small">— sent to {s.hosts.join(', ')}</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}

function attachedTo(secrets: readonly SecretInfo[], environmentId: string | undefined): string[] {
  return environmentId === undefined ? [] : secrets.filter((s) => s.environments.includes(environmentId)).map((s) => s.name);
}

/**
 * Attaches the environment to the secrets chosen for it and detaches it from the others (each secret keeps its
 * value: none is sent). Only the secrets whose list changes are saved.
 */
export async function saveSecretChoice(client: SandpitClient, environmentId: string, chosen: readonly string[]): Promise<void> {
  const { secrets } = await client.call('secrets.list');
  for (const s of secrets) {
    const has = s.environments.includes(environmentId);
    const wants = chosen.includes(s.name);
    if (has === wants) continue;
    const environments = wants ? [...s.environments, environmentId] : s.environments.filter((id) => id !== environmentId);
    await client.call('secrets.save', { name: s.name, hosts: s.hosts, sendAs: s.sendAs, envVar: s.envVar, environments });
  }
}
