import type { NetworkPolicy } from '../../shared/domain/environment';
import type { SecretUse } from '../../shared/domain/secret';
import { secretSandboxEnv } from '../egress/secret-sandbox';
import type { ContainerEnv } from '../sessions/session-template';
import { networkFor } from './environment-services';
import type { EnvironmentServices } from './environment-services';

/** What a session's sandbox is connected with: its network, its variables, and the secrets it may use. */
export interface SessionConnection {
  network?: string;
  containerEnv?: ContainerEnv;
  /** The folder of the CA bundle its sandbox trusts (read-only), when it may use secrets. */
  caDir?: string;
  /** The secrets it may use, by name and host (what its description shows). */
  secrets?: SecretUse[];
}

/**
 * How a session of an environment is connected — the one way for a new session, a restored snapshot and a kept
 * session its next core takes over: no network, the egress proxy, or the open network; and on the egress proxy
 * (issue 18) the placeholders of the secrets its environment may use and the CA bundle (its requests go through
 * the proxy, which puts the values in). Other policies get no secrets: "none" reaches nothing, and "open" does not
 * go through the proxy.
 */
export async function sessionConnection(
  policy: NetworkPolicy,
  environmentId: string | undefined,
  environments: Pick<EnvironmentServices, 'egress' | 'egressProblem' | 'openNetwork' | 'secrets'>,
): Promise<SessionConnection> {
  const network = networkFor(policy, { egress: environments.egress(), open: environments.openNetwork }, environments.egressProblem?.());
  if (policy !== 'packages' || environmentId === undefined || !environments.secrets) return network;
  const uses = await environments.secrets.usesOf(environmentId);
  if (uses.length === 0) return network;
  const caDir = await environments.secrets.caDir();
  const extra = secretSandboxEnv(uses);
  const base = network.containerEnv;
  const containerEnv: ContainerEnv = (sessionId) => ({ ...(typeof base === 'function' ? base(sessionId) : base), ...extra });
  return { ...network, containerEnv, caDir, secrets: uses };
}
