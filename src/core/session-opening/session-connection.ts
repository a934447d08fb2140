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
 * (issue 18) the placeholders of the secrets its environment may use, and of those the person ticked for this
 * session (`forSession`, by name: one no secret has is left out), and the CA bundle (its requests go through the
 * proxy, which puts the values in). Other policies get no secrets: "none" reaches nothing, and "open" does not go
 * through the proxy (see secretsRefusal).
 */
export async function sessionConnection(
  policy: NetworkPolicy,
  environmentId: string | undefined,
  environments: Pick<EnvironmentServices, 'egress' | 'egressProblem' | 'egressSettled' | 'openNetwork' | 'secrets'>,
  forSession: readonly string[] = [],
): Promise<SessionConnection> {
  if (policy === 'packages') await environments.egressSettled?.();
  const network = networkFor(policy, { egress: environments.egress(), open: environments.openNetwork }, environments.egressProblem?.());
  if (policy !== 'packages' || (environmentId === undefined && forSession.length === 0) || !environments.secrets) return network;
  const uses = await environments.secrets.usesOf(environmentId, forSession);
  if (uses.length === 0) return network;
  const caDir = await environments.secrets.caDir();
  const extra = secretSandboxEnv(uses);
  const base = network.containerEnv;
  const containerEnv: ContainerEnv = (sessionId) => ({ ...(typeof base === 'function' ? base(sessionId) : base), ...extra });
  return { ...network, containerEnv, caDir, secrets: uses };
}

/**
 * Why secrets the person ticked cannot go to a session of this environment, in plain words, or undefined: an
 * environment with no network reaches no host, and the open network does not go through Sandpit's proxy (the one
 * thing that puts a secret in); with no secrets here at all, none can be used. Names no secret has are named.
 */
export async function secretsRefusal(
  env: { name: string; network: NetworkPolicy },
  names: readonly string[],
  secrets: EnvironmentServices['secrets'],
): Promise<string | undefined> {
  if (names.length === 0) return undefined;
  if (env.network === 'none') return `The environment "${env.name}" has no network, so its sessions reach no host: a secret cannot be used there.`;
  if (env.network === 'open') return `The environment "${env.name}" has the open network, which does not go through Sandpit's proxy: a secret is put in by that proxy only, so none can be used there.`;
  if (!secrets) return 'Secrets are not available in this Sandpit.';
  const unknown = await secrets.unknown(names);
  const quoted = unknown.map((n) => `"${n}"`);
  if (quoted.length === 1) return `There is no secret ${quoted[0]}: add it in Settings → Secrets first.`;
  if (quoted.length > 1) return `There are no secrets ${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1)}: add them in Settings → Secrets first.`;
  return undefined;
}
