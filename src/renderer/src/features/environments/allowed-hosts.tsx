import { useState } from 'react';
import type { ReactElement } from 'react';
import type { EnvironmentView as Environment } from '../../../../shared/domain/environment';
import { useClient } from '../../stores/panel-context';

/**
 * What an environment with "Package downloads only" may reach, on its card: the package sites and every host
 * allowed for it (by "Allow" in Network activity or in its form), each with a way to take it back.
 */
export function AllowedHosts({ env, onProblem }: { env: Environment; onProblem: (error: unknown) => void }): ReactElement {
  const client = useClient();
  const [removing, setRemoving] = useState<string | undefined>();
  const remove = async (host: string): Promise<void> => {
    setRemoving(host);
    try {
      await client.call('environments.update', { environmentId: env.id, patch: { allowedHosts: env.allowedHosts.filter((h) => h !== host) } });
    } catch (error) {
      onProblem(error);
    } finally {
      setRemoving(undefined);
    }
  };
  if (env.allowedHosts.length === 0) {
    return (
      <p className="small" data-testid="env-reach">
        Its sessions reach only the package sites set in Settings; everything else is blocked.
      </p>
    );
  }
  return (
    <div className="small" data-testid="env-reach">
      <p className="small">Its sessions reach the package sites set in Settings and these hosts; everything else is blocked:</p>
      <ul className="chip-list" aria-label={`Hosts allowed for ${env.name}`} data-testid="env-allowed-hosts-list">
        {env.allowedHosts.map((host) => (
          <li key={host} className="chip" data-testid="env-allowed-host" data-host={host}>
            <span>{host}</span>
            <button
              type="button"
              className="chip-remove"
              aria-label={`Stop allowing ${host}`}
              disabled={removing !== undefined}
              onClick={() => void remove(host)}
              data-testid="env-allowed-host-remove"
            >
              ×
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
