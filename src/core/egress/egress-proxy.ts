import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { SandpitError } from '../../shared/api/errors';
import type { Logger } from '../log';
import { withTimeout } from '../util/with-timeout';
import { compileAllowList } from './egress-allow-list';
import type { EgressConnector } from './egress-connector';
import { guardedConnector } from './egress-connector';
import type { EgressCredentials } from './egress-credentials';
import { forwardRequest } from './egress-forward';
import { endGracefully, rawResponse } from './egress-http';
import { egressRefusals } from './egress-refusals';
import type { EgressRefusal } from './egress-refusals';
import { isWildcardAddress, sourceFilter } from './egress-source-filter';
import { absoluteUriTarget, connectTarget } from './egress-target';
import type { EgressTarget, TargetDecision, TargetPolicy } from './egress-target';
import { openTunnel } from './egress-tunnel';
import type { SecretAuthority } from './secret-ca';
import { secretInterceptor } from './secret-intercept';
import type { UsableSecret } from './secret-store';
import type { EgressOutcome } from './egress-outcome';

export { allowedHostsFromUrls, allowedPortsFromUrls } from './egress-allow-list';
export type { EgressConnector } from './egress-connector';
export type { EgressRefusal } from './egress-refusals';

/** A request or tunnel the proxy let through. */
export interface EgressPassage {
  host: string;
  port: number;
  time: string;
  /** The credential's owner (a session id, or a build). */
  client: string;
}

/** How a passage ended: reached (and what a plain-HTTP host answered) or failed. */
export type EgressPassageOutcome = EgressPassage & EgressOutcome;
export type { EgressRefusalReason } from './egress-target';

export interface EgressProxyOptions {
  /** Bind address: the Docker network's gateway address for containers, or 127.0.0.1 in tests. Never a wildcard. */
  host: string;
  /** The only IPv4 subnet (CIDR) clients may connect from: the egress network's. Other peers are closed at once. */
  allowedSubnet: string;
  /** Who may use the proxy: every request and CONNECT needs `Proxy-Authorization` with a live credential, else 407. */
  credentials: Pick<EgressCredentials, 'verify'>;
  /** 0 = any free port. */
  port: number;
  /** Exact hostnames and `*.domain` wildcards, case-insensitive. IP literals only when listed exactly. */
  allowedHosts: string[];
  /** Upstream ports a client may reach. Default 443 and 80. */
  allowedPorts?: number[];
  /** Methods forwarded for plain-HTTP (absolute-URI) requests; CONNECT is separate. Default GET and HEAD. */
  allowedMethods?: string[];
  /** Called for every refused request, after the 403 is on its way. Must not throw (a throw is swallowed). */
  onRefused(event: EgressRefusal): void;
  /** Called for every request and tunnel let through, with the credential's owner. Must not throw. */
  onAllowed?(event: EgressPassage): void;
  /** Called once per passage let through, when it reached its host or failed to. Must not throw. */
  onOutcome?(event: EgressPassageOutcome): void;
  /** More hosts one owner may reach (its environment's own allow-list), on top of `allowedHosts`. */
  extraHostsFor?(owner: string): readonly string[];
  /** Opens upstream connections for allowed hosts. Default: net.connect that never reaches this computer (loopback, its own interfaces) or link-local addresses. */
  connect?: EgressConnector;
  log: Logger;
  /**
   * Secrets (issue 18): the secrets an owner may use for `host:port`. A CONNECT to a host with any is
   * intercepted (TLS ends here with a leaf of `authority`, the secrets go in); every other host keeps the tunnel.
   */
  secrets?: {
    authority: SecretAuthority;
    secretsFor(owner: string, host: string, port: number): Promise<readonly UsableSecret[]>;
    /** A request to a secret's host was forwarded with these secrets in (maybe none). Must not throw. */
    onUsed?(event: EgressPassage & { secrets: string[] }): void;
    /** More CAs trusted upstream: tests' own CA only. */
    upstreamCa?: readonly string[];
  };
  /** Client connections open at once (tunnels included); more are dropped at accept. Default 256. */
  maxConnections?: number;
  /** A connection (client or upstream) with no bytes either way for this long is closed. Default 120 s. */
  idleTimeoutMs?: number;
  /** Time allowed to open an upstream connection. Default 15 s. */
  connectTimeoutMs?: number;
  /** Largest request head; more is a 431. Default 16 KiB. */
  maxHeaderBytes?: number;
}

export interface EgressProxyStats {
  /** Client connections open now. */
  connections: number;
  /** CONNECT tunnels open now. */
  tunnels: number;
  /** Tunnels opened plus plain-HTTP requests forwarded, since start. */
  forwarded: number;
  /** Requests refused, since start. */
  refused: number;
  /** Connections dropped at accept because maxConnections was reached, since start. */
  dropped: number;
  /** Connections closed at accept because they came from outside the allowed subnet, since start. */
  outsiders: number;
}

export interface RunningEgressProxy {
  port: number;
  address: string;
  close(): Promise<void>;
  /**
   * Replaces the allow-list (and, when given, the allowed ports) for new requests; throws
   * INVALID_INPUT and keeps the old policy on a bad entry.
   */
  setAllowedHosts(hosts: string[], ports?: number[]): void;
  /** Closes every connection (tunnels included) that authenticated as `owner`; call it after revoking its credential. */
  disconnect(owner: string): void;
  stats(): EgressProxyStats;
}

const DEFAULTS = { maxConnections: 256, idleTimeoutMs: 120_000, connectTimeoutMs: 15_000, maxHeaderBytes: 16 * 1024 };

function checkedPorts(ports: number[]): ReadonlySet<number> {
  if (!ports.every((p) => Number.isInteger(p) && p >= 1 && p <= 65_535))
    throw new SandpitError('INVALID_INPUT', `allowedPorts must be ports (1-65535): ${ports.join(', ')}`);
  return new Set(ports);
}

/** Host and port of a decision, allowed or not (what a refusal event names). */
function targetOf(decision: TargetDecision): { host: string; port: number } {
  return decision.ok ? { host: decision.target.host, port: decision.target.port } : { host: decision.host, port: decision.port };
}

/**
 * Sandpit's egress proxy for the `packages` network policy: an HTTP forward proxy that serves
 * `CONNECT host:port` tunnels and absolute-URI plain-HTTP requests to allow-listed hosts only.
 *
 * Who may use it: a connection from outside `allowedSubnet` is closed at accept, before a byte is
 * read; a request or CONNECT without a live credential is a 407 (`Proxy-Authenticate: Basic`), decided
 * before its target is looked at. Clients point at it with `http://<owner>:<secret>@<address>:<port>`
 * (HTTP_PROXY / HTTPS_PROXY, `pip --proxy`, npm `--proxy`), so they send
 * `Proxy-Authorization: Basic base64("<owner>:<secret>")`; the owner the secret was issued to is the
 * `client` of refusal events.
 *
 * What may pass is decided from the request line before any lookup or connection; a refusal is a 403
 * (header `X-Sandpit-Refused: <reason>`) plus `onRefused`.
 */
export async function startEgressProxy(options: EgressProxyOptions): Promise<RunningEgressProxy> {
  if (isWildcardAddress(options.host)) {
    throw new SandpitError('INVALID_INPUT', `The egress proxy never listens on every interface (${JSON.stringify(options.host)}): give it one address.`);
  }
  const sources = sourceFilter(options.allowedSubnet);
  const log = options.log.child({ component: 'egress-proxy' });
  const limits = {
    maxConnections: options.maxConnections ?? DEFAULTS.maxConnections,
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULTS.idleTimeoutMs,
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs,
    maxHeaderBytes: options.maxHeaderBytes ?? DEFAULTS.maxHeaderBytes,
  };
  const connector = options.connect ?? guardedConnector;
  const methods = new Set((options.allowedMethods ?? ['GET', 'HEAD']).map((m) => m.toUpperCase()));
  let policy: TargetPolicy = {
    allowList: compileAllowList(options.allowedHosts),
    allowedPorts: checkedPorts(options.allowedPorts ?? [443, 80]),
  };
  const clients = new Set<Socket>();
  const upstreams = new Set<Socket>();
  /** The owner each client connection last authenticated as. */
  const owners = new Map<Socket, string>();
  const counts = { tunnels: 0, forwarded: 0, refused: 0, dropped: 0, outsiders: 0 };
  const track = (socket: Socket): void => {
    upstreams.add(socket);
    socket.once('close', () => upstreams.delete(socket));
  };
  /** The owner of the request's credential, remembered for its connection; undefined: no live credential. */
  const authenticate = (req: IncomingMessage): string | undefined => {
    const owner = options.credentials.verify(req.headers['proxy-authorization']);
    if (owner !== undefined) owners.set(req.socket, owner);
    return owner;
  };

  const refuse = egressRefusals({
    log,
    onRefused: (event) => options.onRefused(event),
    ownerOf: (socket) => owners.get(socket),
    counted: () => void (counts.refused += 1),
  });
  const upstreamDeps = {
    connector,
    log,
    track,
    connectTimeoutMs: limits.connectTimeoutMs,
    idleTimeoutMs: limits.idleTimeoutMs,
  };

  /** The policy of one owner: the allow-list plus its environment's own hosts (compiled once per list). */
  const ownerPolicies = new Map<string, { key: string; policy: TargetPolicy }>();
  const policyOf = (owner: string): TargetPolicy => {
    const extra = options.extraHostsFor?.(owner) ?? [];
    if (extra.length === 0) return policy;
    const key = `${policy.allowList.entries.join(',')}|${extra.join(',')}`;
    const known = ownerPolicies.get(owner);
    if (known?.key === key) return known.policy;
    const compiled = { ...policy, allowList: compileAllowList([...policy.allowList.entries, ...extra]) };
    ownerPolicies.set(owner, { key, policy: compiled });
    return compiled;
  };
  const passed = (client: string, host: string, port: number): void => {
    try {
      options.onAllowed?.({ host, port, time: new Date().toISOString(), client });
    } catch (error) {
      log.warn('onAllowed listener failed', { message: error instanceof Error ? error.message : String(error) });
    }
  };

  const outcome =
    (client: string, host: string, port: number) =>
    (result: EgressOutcome): void => {
      try {
        options.onOutcome?.({ host, port, time: new Date().toISOString(), client, ...result });
      } catch (error) {
        log.warn('onOutcome listener failed', { message: error instanceof Error ? error.message : String(error) });
      }
    };

  const server = createServer({ maxHeaderSize: limits.maxHeaderBytes, requireHostHeader: false });
  server.maxConnections = limits.maxConnections;
  server.timeout = limits.idleTimeoutMs;
  server.headersTimeout = Math.min(20_000, limits.idleTimeoutMs);
  server.requestTimeout = Math.min(60_000, limits.idleTimeoutMs);
  // Before the HTTP server's own listener: a peer outside the subnet never gets a byte parsed.
  server.prependListener('connection', (socket: Socket) => {
    if (sources.allows(socket.remoteAddress)) {
      clients.add(socket);
      socket.once('close', () => {
        clients.delete(socket);
        owners.delete(socket);
      });
      return;
    }
    counts.outsiders += 1;
    log.warn('refused egress connection from outside the egress network', {
      source: socket.remoteAddress,
      sourcePort: socket.remotePort,
      subnet: sources.subnet,
    });
    socket.destroy();
  });
  server.on('drop', () => {
    counts.dropped += 1;
    log.debug('egress connection dropped: too many connections', { maxConnections: limits.maxConnections });
  });

  const interceptor = options.secrets
    ? secretInterceptor({ authority: options.secrets.authority, connector, log, track, idleTimeoutMs: limits.idleTimeoutMs, connectTimeoutMs: limits.connectTimeoutMs, maxHeaderBytes: limits.maxHeaderBytes, ...(options.secrets.upstreamCa ? { upstreamCa: options.secrets.upstreamCa } : {}) })
    : undefined;
  /** The secrets of a passage, or none; a failure to unlock them is said in the log and the host is tunnelled with none. */
  const secretsOf = async (client: string, host: string, port: number): Promise<readonly UsableSecret[]> => {
    if (!options.secrets) return [];
    try {
      return await withTimeout(options.secrets.secretsFor(client, host, port), 10_000, 'unlocking the secrets');
    } catch (error) {
      log.warn('the secrets of a session could not be unlocked; its request goes without them', { host, port, client, message: error instanceof Error ? error.message : String(error) });
      return [];
    }
  };

  /** TLS ends here for a secret's host: the secrets go into its requests, and the passage is reported. */
  const interceptWith = (client: string, socket: Socket, head: Buffer, target: EgressTarget, secrets: readonly UsableSecret[]): void => {
    if (!interceptor) return;
    const { host, port } = target;
    counts.forwarded += 1;
    log.debug('egress secret passage', { host, port, client, secrets: secrets.map((s) => s.name) });
    const report = outcome(client, host, port);
    interceptor.intercept(socket, head, {
      target,
      secrets,
      onRequest: (used) => {
        try {
          options.secrets?.onUsed?.({ host, port, time: new Date().toISOString(), client, secrets: used });
        } catch (error) {
          log.warn('onUsed listener failed', { message: error instanceof Error ? error.message : String(error) });
        }
      },
      onOutcome: (connected, status, code) => report(connected ? { connected: true, ...(status ? { status } : {}) } : { connected: false, ...(code ? { code } : {}) }),
    });
  };

  server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const client = authenticate(req);
    if (client === undefined) {
      const { host, port } = targetOf(connectTarget(policy, req.url ?? ''));
      return refuse.onSocket(req, socket, host, port, 'proxy-auth-required');
    }
    const decision: TargetDecision = connectTarget(policyOf(client), req.url ?? '');
    if (!decision.ok && decision.reason === 'port-not-allowed' && interceptor) {
      // A port the policy does not open is still open to a secret that names it (`api.example.com:8443`), and only
      // intercepted: the host is allowed, and the secret's host says that port.
      const { host, port } = decision;
      const early = (): void => void socket.destroy();
      socket.on('error', early);
      void secretsOf(client, host, port).then((secrets) => {
        socket.off('error', early);
        if (socket.destroyed) return;
        if (secrets.length === 0) return refuse.onSocket(req, socket, host, port, 'port-not-allowed');
        passed(client, host, port);
        interceptWith(client, socket as Socket, head, { host, port }, secrets);
      });
      return;
    }
    if (!decision.ok) return refuse.onSocket(req, socket, decision.host, decision.port, decision.reason);
    const { host, port } = decision.target;
    passed(client, host, port);
    const target = decision.target;
    const tunnel = (): void => {
    log.debug('egress tunnel', { host, port, client });
    openTunnel(socket as Socket, head, target, {
      ...upstreamDeps,
      refuseForbiddenAddress: () => refuse.onSocket(req, socket, host, port, 'forbidden-address'),
      onOutcome: outcome(client, host, port),
      onOpen: () => {
        counts.tunnels += 1;
        counts.forwarded += 1;
      },
      onClose: () => {
        counts.tunnels -= 1;
      },
    });
    };
    if (interceptor) {
      const early = (): void => void socket.destroy();
      socket.on('error', early);
      void secretsOf(client, host, port).then((secrets) => {
        socket.off('error', early);
        if (socket.destroyed) return;
        if (secrets.length === 0) return tunnel();
        interceptWith(client, socket as Socket, head, target, secrets);
      });
      return;
    }
    tunnel();
  });

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const client = authenticate(req);
    if (client === undefined) {
      const { host, port } = targetOf(absoluteUriTarget(policy, req));
      return refuse.onResponse(req, res, host, port, 'proxy-auth-required');
    }
    const decision = absoluteUriTarget(policyOf(client), req);
    if (!decision.ok) return refuse.onResponse(req, res, decision.host, decision.port, decision.reason);
    const { host, port } = decision.target;
    if (!methods.has(req.method ?? '')) return refuse.onResponse(req, res, host, port, 'method-not-allowed');
    passed(client, host, port);
    counts.forwarded += 1;
    log.debug('egress forward', { host, port, method: req.method, client });
    forwardRequest(req, res, decision.target, {
      ...upstreamDeps,
      refuseForbiddenAddress: () => refuse.onResponse(req, res, host, port, 'forbidden-address'),
      onOutcome: outcome(client, host, port),
    });
  });

  // `Upgrade:` on an absolute-URI request (websockets through the proxy): never.
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    const { host, port } = targetOf(absoluteUriTarget(policy, req));
    refuse.onSocket(req, socket, host, port, authenticate(req) === undefined ? 'proxy-auth-required' : 'upgrade-not-supported');
  });

  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    log.debug('egress client error', { code: error.code, status });
    if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    endGracefully(
      socket,
      rawResponse(status, `Sandpit egress proxy: ${status === 431 ? 'request headers too large' : 'bad request'}`),
    );
  });

  await withTimeout(
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    }),
    10_000,
    'starting the egress proxy',
  );
  server.on('error', (error) => log.error('egress proxy server error', { message: error.message }));
  const bound = server.address() as AddressInfo;
  log.info('egress proxy listening', {
    address: bound.address,
    port: bound.port,
    allowedSubnet: sources.subnet,
    allowedHosts: policy.allowList.entries,
  });

  let closing: Promise<void> | undefined;
  return {
    port: bound.port,
    address: bound.address,
    close: (): Promise<void> => {
      closing ??= withTimeout(
        new Promise<void>((resolve) => {
          interceptor?.close();
          server.close(() => resolve());
          for (const socket of [...clients, ...upstreams]) socket.destroy();
        }),
        10_000,
        'closing the egress proxy',
      ).then(() => log.info('egress proxy closed', { port: bound.port }));
      return closing;
    },
    setAllowedHosts: (hosts: string[], ports?: number[]): void => {
      const allowList = compileAllowList(hosts);
      policy = { allowList, allowedPorts: ports === undefined ? policy.allowedPorts : checkedPorts(ports) };
      log.info('egress allow-list replaced', { allowedHosts: allowList.entries, allowedPorts: [...policy.allowedPorts] });
    },
    disconnect: (owner: string): void => {
      for (const [socket, holder] of owners) if (holder === owner) socket.destroy();
    },
    stats: (): EgressProxyStats => ({ connections: clients.size, ...counts }),
  };
}
