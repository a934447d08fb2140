import { useEffect, useState } from 'react';
import type { ReactElement } from 'react';
import type { EnvironmentView } from '../../../../shared/domain/environment';
import type { SecretInfo } from '../../../../shared/domain/secret';
import { useClient } from '../../stores/panel-context';
import { plainError } from '../../stores/panel-store';

/**
 * Why a session of this environment cannot be given secrets, in a plain sentence, or undefined when it can: only
 * requests through Sandpit's egress proxy (network "packages") get a secret put in.
 */
export function whyNoSecrets(env: Pick<EnvironmentView, 'network'>): string | undefined {
  if (env.network === 'none') return 'Secrets are not offered: this environment has no network, so its sessions reach no host.';
  if (env.network === 'open') return "Secrets are not offered: this environment's open network does not go through Sandpit's proxy, which is what puts a secret into requests.";
  return undefined;
}

/**
 * The secrets one new session may use besides its environment's (issue 18), in the New session dialog: one box per
 * secret of Settings → Secrets, by name and hosts (values are never here). The environment's own are shown ticked
 * and fixed. Only for environments whose network goes through Sandpit's proxy; for others, a sentence says why not
 * (nothing at all while the person has no secret).
 */
export function SessionSecretChoice({ env, chosen, onChange }: { env: EnvironmentView; chosen: readonly string[]; onChange: (names: string[]) => void }): ReactElement | null {
  const client = useClient();
  const [secrets, setSecrets] = useState<SecretInfo[] | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const why = whyNoSecrets(env);
  useEffect(() => {
    let live = true;
    client.call('secrets.list').then(
      (list) => {
        if (live) setSecrets(list.secrets);
      },
      (error: unknown) => {
        if (live) setProblem(plainError(error));
      },
    );
    return () => {
      live = false;
    };
  }, [client]);

  if (why) {
    if (!secrets?.length) return null;
    return (
      <p className="muted small" data-testid="new-session-secrets-why">
        {why}
      </p>
    );
  }
  return (
    <fieldset className="choices" data-testid="new-session-secrets">
      <legend className="label">Secrets this session may use</legend>
      <p className="muted small">Besides its environment&apos;s. The sandbox sees only a stand-in; Sandpit puts the value into requests to the secret&apos;s own hosts.</p>
      {problem ? (
        <p className="field-error" role="alert">
          {problem}
        </p>
      ) : null}
      {secrets?.length === 0 ? <p className="muted small" data-testid="new-session-secrets-none">No secrets yet: add one in Settings → Secrets.</p> : null}
      {secrets?.map((s) => {
        const ofEnvironment = s.environments.includes(env.id);
        return (
          <label key={s.name} className="choice">
            <input
              type="checkbox"
              checked={ofEnvironment || chosen.includes(s.name)}
              disabled={ofEnvironment}
              onChange={(e) => onChange(e.target.checked ? [...chosen, s.name] : chosen.filter((n) => n !== s.name))}
              data-testid={`new-session-secret-${s.name}`}
            />{' '}
            <span>
              <strong>{s.name}</strong> <span className="muted small">— sent to {s.hosts.join(', ')}{ofEnvironment ? ' (its environment has it)' : ''}</span>
            </span>
          </label>
        );
      })}
    </fieldset>
  );
}
