import { isIP } from 'node:net';
import type { EventPayload } from '../../shared/api/contract';
import { SandpitError } from '../../shared/api/errors';
import { BUILD_HOSTS } from '../../shared/domain/package-managers';
import type { InstanceIdentity } from '../sandbox/instance-identity';
import type { Logger } from '../log';
import type { NetworkInfo, SandboxNetworks } from '../sandbox/sandbox-networks';
import { newId } from '../util/ids';
import { egressCredentials } from './egress-credentials';
import type { EgressCredentials } from './egress-credentials';
import { outcomeWords } from './egress-outcome';
import { allowedHostsFromUrls, allowedPortsFromUrls, startEgressProxy } from './egress-proxy';
import { sourceFilter } from './egress-source-filter';
import type { EgressConnector, EgressProxyStats, EgressRefusal, RunningEgressProxy } from './egress-proxy';
import type { InstallProxy } from '../installers/helper-install';
import { lazyAuthority } from './secret-ca';
import type { SecretAuthority } from './secret-ca';
import type { UsableSecret } from './secret-store';

/** The payload of the `egress.refused` bus event. */
export type EgressRefusedEvent = EventPayload<'egress.refused'>;

export interface EgressGatewayOptions {
  /** The engine's networks (the proxy's internal network is made there). */
  networks: SandboxNetworks;
  identity: InstanceIdentity;
  /** Index URLs (pip index, npm registry): their hosts, the hosts serving their files and their ports are allowed. */
  allowedUrls: string[];
  /** More hosts (`files.example.org`, `*.example.org`) to allow. */
  extraHosts: string[];
  /** Every refused request, with the session its credential was issued to (none for a 407 or a build). Must not throw. */
  onRefused(event: EgressRefusedEvent): void;
  /** Every request and tunnel let through for a session (not for builds). Must not throw. */
  onAllowed?(event: EventPayload<'egress.allowed'>): void;
  /** How each of those ended: reached (and what a plain-HTTP host answered), or failed and why. Must not throw. */
  onOutcome?(event: EventPayload<'egress.outcome'>): void;
  /** More hosts a session may reach: its environment's own allow-list. */
  extraHostsFor?(sessionId: string): readonly string[];
  log: Logger;
  /** Opens upstream connections for allowed hosts (tests map names to local addresses). Default: the guarded net.connect. */
  connect?: EgressConnector;
  /** Proxy port on the gateway address; default 0 (any free port). */
  port?: number;
  /** Secrets (issue 18): what each session may use; its requests to those hosts are intercepted (never a build's). */
  secrets?: {
    authority: SecretAuthority;
    secretsFor(sessionId: string, host: string, port: number): Promise<readonly UsableSecret[]>;
    onUsed?(event: { host: string; port: number; time: string; sessionId: string; secrets: string[] }): void;
    upstreamCa?: readonly string[];
  };
}

export interface EgressGateway {
  /** Name of the internal Docker network: give it to containers that may reach the package indexes. */
  network: string;
  networkId: string;
  /** The host's address on that network, where the proxy listens (and nothing else of ours does). */
  gatewayIp: string;
  /** The network's IPv4 subnet (CIDR): the only addresses the proxy accepts connections from. */
  subnet: string;
  port: number;
  /**
   * `http://<sessionId>:<secret>@<gatewayIp>:<port>`: the session's credential (issued on first use, the
   * same until `revoke`), the only way through the proxy. Hand it to that session's containers only.
   */
  proxyUrl(sessionId: string): string;
  /** Proxy variables pip, npm, Python's urllib and curl honour, with the session's credential; NO_PROXY empty so nothing bypasses it. */
  env(sessionId: string): Record<string, string>;
  /** The `proxy` of the installer's InstallSettings for one session (the session's credential). */
  installerProxy(sessionId: string): InstallProxy;
  /** A credential for one image build (refusals name no session); `release` revokes it once the build is over. */
  buildProxy(): { env: Record<string, string>; release: () => void };
  /** Revokes the session's credential and closes the connections that used it. Safe for a session that never had one. */
  revoke(sessionId: string): void;
  /** Credentials alive now (sessions and builds). */
  credentialCount(): number;
  /** Replaces the allow-list (hosts and ports) for new requests; throws INVALID_INPUT and keeps the old one on a bad entry. */
  setAllowed(urls: string[], extraHosts: string[]): void;
  stats(): EgressProxyStats;
  /** Stops the proxy and removes the network (containers still on it make that fail: stop them first). */
  close(): Promise<void>;
}

/** The name of an instance's egress network: `sandpit-egress-<first 12 hex digits of the instance id>`. */
export function egressNetworkName(identity: InstanceIdentity): string {
  const short = identity.instanceId.replace(/[^0-9a-zA-Z]/g, '').slice(0, 12).toLowerCase();
  return `sandpit-egress-${short}`;
}

/** The first IPv4 subnet of a network that has a gateway address. */
function ipv4Gateway(info: NetworkInfo): { subnet: string; gateway: string } {
  const entry = info.subnets.find((s) => s.gateway !== undefined && isIP(s.gateway) === 4);
  if (!entry?.gateway) throw new SandpitError('INTERNAL', `Docker network ${info.name} has no IPv4 gateway address.`);
  return { subnet: entry.subnet, gateway: entry.gateway };
}

/**
 * A listen on the gateway address that failed because the address is not in this process's network
 * namespace (remote engine, Docker Desktop's VM, rootless Docker), as a plain-words error. (Checking
 * os.networkInterfaces() first does not work: it omits a bridge with no container on it yet.)
 */
function notLocalError(error: unknown, gateway: string, network: string, networks: SandboxNetworks): unknown {
  if ((error as NodeJS.ErrnoException | undefined)?.code !== 'EADDRNOTAVAIL') return error;
  return new SandpitError(
    'INTERNAL',
    `The egress proxy cannot listen on ${gateway}, the gateway of Docker network ${network}: that address is not on this machine ` +
      `(${networks.endpoint.kind} engine at ${networks.endpoint.address}). The "packages" network policy needs a local Docker engine on Linux.`,
  );
}

/** Why there is no egress proxy with a remote engine, in plain words (package installs and the "packages" policy need it). */
export function remoteEngineRefusal(networks: Pick<SandboxNetworks, 'endpoint'>): SandpitError {
  return new SandpitError(
    'CONFLICT',
    `Package installs and the "packages" network policy go through Sandpit's egress proxy on this computer, and the containers of a remote Docker engine (${networks.endpoint.address}) cannot reach it. ` +
      'Use a Docker engine on this computer for sessions that install packages, or bake the packages into an environment\'s image on that engine, or use the network policy "none" or "open".',
  );
}

/** A refusal as a bus event: the verified owner is its session, unless the owner is a build (no session). */
function toEvent(refusal: EgressRefusal, builds: ReadonlySet<string>): EgressRefusedEvent {
  const { client, ...rest } = refusal;
  return client === undefined || builds.has(client) ? rest : { ...rest, sessionId: client };
}

function proxyEnv(url: string): Record<string, string> {
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    NO_PROXY: '',
    no_proxy: '',
    PIP_PROXY: url,
    npm_config_proxy: url,
    npm_config_https_proxy: url,
  };
}

/**
 * The `packages` network policy's way out: an `internal` Docker network (no route beyond the host)
 * labelled with this instance (so the reaper removes it after a crash), and the egress proxy bound
 * to the host's address on that network — never 0.0.0.0. Containers on the network reach the
 * package indexes only through the proxy.
 *
 * The gateway address is the host's: containers on other bridge networks can route to it too. So the
 * proxy accepts connections from the network's subnet only, and serves only requests carrying a
 * credential issued here (per session, per build) and not yet revoked.
 *
 * Needs the engine's bridges in this process's network namespace (a local Linux engine). With a
 * remote engine, Docker Desktop or rootless Docker the gateway address is not ours and this fails
 * with a clear error instead of opening anything.
 */
export async function startEgressGateway(options: EgressGatewayOptions): Promise<EgressGateway> {
  const { networks } = options;
  const log = options.log.child({ component: 'egress-gateway' });
  const network = egressNetworkName(options.identity);
  // Validate the allow-list before touching the engine.
  const allowedHosts = allowedHostsFromUrls(options.allowedUrls, options.extraHosts);
  const allowedPorts = allowedPortsFromUrls(options.allowedUrls);

  // A remote engine's containers reach their own host at the network's gateway, never this computer: a proxy
  // listening here on that address (it can exist here too: the same default subnets) would never see them.
  if (networks.endpoint.kind === 'remote') throw remoteEngineRefusal(networks);
  log.info('creating egress network', { network });
  const networkId = await networks.createInternal(network, 'egress');
  let proxy: RunningEgressProxy | undefined;
  try {
    const info = await networks.inspect(networkId);
    if (!info) throw new SandpitError('INTERNAL', `Docker network ${network} vanished right after it was created.`);
    if (!info.internal) throw new SandpitError('INTERNAL', `Docker network ${network} is not internal.`);
    const { subnet, gateway } = ipv4Gateway(info);
    if (!sourceFilter(subnet).allows(gateway)) throw new SandpitError('INTERNAL', `Docker network ${network}'s gateway ${gateway} is not inside its subnet ${subnet}.`);
    const credentials = egressCredentials();
    const builds = new Set<string>();
    proxy = await startEgressProxy({
      host: gateway,
      port: options.port ?? 0,
      allowedSubnet: subnet,
      credentials,
      allowedHosts,
      allowedPorts,
      onRefused: (refusal) => options.onRefused(toEvent(refusal, builds)),
      onAllowed: (passage) => {
        if (!builds.has(passage.client)) options.onAllowed?.({ host: passage.host, port: passage.port, time: passage.time, sessionId: passage.client });
      },
      onOutcome: (passage) => {
        if (builds.has(passage.client)) return;
        const answer = outcomeWords(passage);
        options.onOutcome?.({ host: passage.host, port: passage.port, time: passage.time, sessionId: passage.client, connected: passage.connected, ...(answer ? { answer } : {}) });
      },
      ...(options.secrets ? { secrets: gatewaySecrets(options.secrets, builds) } : {}),
      // A build reaches the index settings' hosts and the base images' Debian mirrors (apt, and R's r-cran-*
      // packages through it); a session never gets the mirrors from here.
      extraHostsFor: (owner) => (builds.has(owner) ? BUILD_HOSTS : (options.extraHostsFor?.(owner) ?? [])),
      ...(options.connect ? { connect: options.connect } : {}),
      log,
    }).catch((error: unknown) => {
      throw notLocalError(error, gateway, network, networks);
    });
    log.info('egress gateway ready', { network, networkId, gateway, subnet, port: proxy.port });
    return gatewayHandle({ networks, log, network, networkId, gateway, subnet, proxy, credentials, builds });
  } catch (error) {
    log.warn('failed to start the egress gateway', { network, error: error instanceof Error ? error.message : String(error) });
    await proxy?.close().catch(() => undefined);
    await networks.remove(networkId).catch(() => undefined);
    throw error;
  }
}

/** The proxy's secrets option: a build never gets one; a use is reported with its session. */
function gatewaySecrets(secrets: NonNullable<EgressGatewayOptions['secrets']>, builds: ReadonlySet<string>): NonNullable<Parameters<typeof startEgressProxy>[0]['secrets']> {
  return {
    authority: lazyAuthority(() => secrets.authority),
    secretsFor: (owner, host, port) => (builds.has(owner) ? Promise.resolve([]) : secrets.secretsFor(owner, host, port)),
    onUsed: (event) => secrets.onUsed?.({ host: event.host, port: event.port, time: event.time, sessionId: event.client, secrets: event.secrets }),
    ...(secrets.upstreamCa ? { upstreamCa: secrets.upstreamCa } : {}),
  };
}

interface HandleParts {
  networks: SandboxNetworks;
  log: Logger;
  network: string;
  networkId: string;
  gateway: string;
  subnet: string;
  proxy: RunningEgressProxy;
  credentials: EgressCredentials;
  /** Owners whose credential is a build's. */
  builds: Set<string>;
}

function gatewayHandle(parts: HandleParts): EgressGateway {
  const { networks, log, network, networkId, gateway, proxy, credentials, builds } = parts;
  // Owners are URL-safe by construction (the credential store refuses others), secrets are base64url.
  const proxyUrl = (owner: string): string => `http://${owner}:${credentials.issue(owner)}@${gateway}:${proxy.port}`;
  const revoke = (owner: string): void => {
    const had = credentials.revoke(owner);
    proxy.disconnect(owner);
    if (had) log.debug('egress credential revoked', { owner });
  };
  let closing: Promise<void> | undefined;
  return {
    network,
    networkId,
    gatewayIp: gateway,
    subnet: parts.subnet,
    port: proxy.port,
    proxyUrl,
    env: (sessionId: string): Record<string, string> => proxyEnv(proxyUrl(sessionId)),
    installerProxy: (sessionId: string): InstallProxy => {
      const url = proxyUrl(sessionId);
      return { network, env: proxyEnv(url), pipProxyUrl: url };
    },
    buildProxy: (): { env: Record<string, string>; release: () => void } => {
      const owner = newId('build', 8);
      builds.add(owner);
      const env = proxyEnv(proxyUrl(owner));
      return {
        env,
        release: (): void => {
          revoke(owner);
          builds.delete(owner);
        },
      };
    },
    revoke,
    credentialCount: (): number => credentials.count(),
    setAllowed: (urls: string[], extraHosts: string[]): void =>
      proxy.setAllowedHosts(allowedHostsFromUrls(urls, extraHosts), allowedPortsFromUrls(urls)),
    stats: (): EgressProxyStats => proxy.stats(),
    close: (): Promise<void> =>
      (closing ??= (async () => {
        credentials.clear();
        await proxy.close();
        log.info('removing egress network', { network, networkId });
        await networks.remove(networkId);
        log.info('removed egress network', { network, networkId });
      })()),
  };
}
