import { SandpitError } from '../../shared/api/errors';
import type { Environment, NetworkPolicy } from '../../shared/domain/environment';
import type { Isolation } from '../../shared/domain/isolation';
import type { SandpitConfig } from '../config';
import type { InstallProxy, InstallSettings } from '../installers/helper-install';
import type { ContainerEnv } from '../sessions/session-template';
import type { EnvironmentBuilder } from '../environments/environment-builder';
import type { EnvironmentStore } from '../environments/environment-store';
import type { EnvironmentSecrets } from '../egress/secret-services';
import { indexUrlsOf } from '../../shared/domain/package-managers';

/** Where sessions of the "packages" policy are attached: the egress proxy's network. */
export interface EgressAccess {
  network: string;
  /** Proxy variables carrying the session's own credential. */
  env(sessionId: string): Record<string, string>;
  installerProxy(sessionId: string): InstallProxy;
}

export interface EnvironmentServices {
  store: EnvironmentStore;
  builder: EnvironmentBuilder;
  /** The egress proxy's network, when Sandpit runs one (undefined when it is not running). */
  egress(): EgressAccess | undefined;
  /** Why the egress proxy is not running, when its start failed (e.g. a remote engine). */
  egressProblem?(): string | undefined;
  /** Resolves once the egress proxy is up, or its start failed (it starts behind the first warm sandbox: this starts it sooner when needed). */
  egressSettled?(): Promise<void>;
  /** The engine's network with a way out (sessions of the "open" policy). */
  openNetwork: string;
  /** The isolation of sessions whose environment does not choose one (the Settings default, now). */
  defaultIsolation(): Isolation;
  /** Secrets (issue 18): what an environment's (or one session's) sessions may use, and the CA bundle they trust. */
  secrets?: EnvironmentSecrets;
}

/** The isolation sessions of an environment get. */
export function isolationOf(env: Environment, services: Pick<EnvironmentServices, 'defaultIsolation'>): Isolation {
  return env.isolation ?? services.defaultIsolation();
}

/** How a session of this policy is connected: nothing, the egress proxy only, or the open network. */
export function networkFor(
  policy: NetworkPolicy,
  networks: { egress: EgressAccess | undefined; open: string },
  whyNot?: string,
): { network?: string; containerEnv?: ContainerEnv } {
  const { egress } = networks;
  if (policy === 'none') return {};
  if (policy === 'open') return { network: networks.open };
  if (!egress) throw new SandpitError('DOCKER_UNAVAILABLE', `The egress proxy for the "packages" network policy is not running; sessions of this environment cannot start.${whyNot ? ` ${whyNot}` : ''}`);
  // Each sandbox's proxy URL carries a credential issued for it: the proxy serves nothing else, and
  // refusals are logged with the session the credential belongs to.
  return { network: egress.network, containerEnv: (sessionId) => egress.env(sessionId) };
}

/**
 * What one session's installs use: the index URLs, and the egress proxy when it is on — never around it:
 * with the proxy on but not running, installs are refused rather than sent over an open network.
 */
export function installSettingsFor(
  config: SandpitConfig,
  networks: { egress: EgressAccess | undefined; open: string },
  sessionId: string,
  whyNot?: string,
): InstallSettings {
  const { egress } = networks;
  if (!egress && config.egressProxy) {
    throw new SandpitError(
      'DOCKER_UNAVAILABLE',
      `Packages cannot be installed: the egress proxy that limits installs to the package indexes is not running (${whyNot ?? 'it needs a local Docker engine on Linux'}). Set SANDPIT_EGRESS_PROXY=off to install over the install network without it.`,
    );
  }
  return {
    ...indexUrlsOf(config),
    installNetwork: config.installNetwork ?? networks.open,
    installTimeoutMs: config.installTimeoutMs,
    ...(egress ? { proxy: egress.installerProxy(sessionId) } : {}),
  };
}
