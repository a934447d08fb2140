import { Agent, request } from 'node:https';
import type { AgentOptions } from 'node:https';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import type { Socket } from 'node:net';
import { TLSSocket, connect as tlsConnect, createSecureContext, rootCertificates } from 'node:tls';
import type { ConnectionOptions, SecureContext } from 'node:tls';
import type { Logger } from '../log';
import type { EgressConnector } from './egress-connector';
import { FORBIDDEN_ADDRESS } from './egress-connector';
import type { EgressTarget } from './egress-target';
import type { SecretAuthority } from './secret-ca';
import { headersWithSecrets } from './secret-headers';
import type { UsableSecret } from './secret-store';

export interface InterceptDeps {
  authority: SecretAuthority;
  connector: EgressConnector;
  /** More CAs the proxy trusts upstream (tests' own CA only; the system's are always trusted). */
  upstreamCa?: readonly string[];
  log: Logger;
  idleTimeoutMs: number;
  connectTimeoutMs: number;
  maxHeaderBytes: number;
  track: (socket: Socket) => void;
}

/** One intercepted connection: its target, the secrets it may carry and who to tell. */
interface Passage {
  target: EgressTarget;
  secrets: readonly UsableSecret[];
  /** Each request forwarded, with the names of the secrets put in it (maybe none). */
  onRequest(used: string[]): void;
  /** The upstream answered, or could not be reached (its error code). */
  onOutcome(connected: boolean, status?: number, code?: string): void;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'trailer']);

/** An https agent whose connections go through the egress connector (never loopback, link-local, …), verified. */
class GuardedAgent extends Agent {
  constructor(
    private readonly connector: EgressConnector,
    options: AgentOptions,
    /** Extra trust (tests' own CA), made once: as a `ca` option the agent would join every root into each request's pool key. */
    private readonly secureContext?: SecureContext,
  ) {
    super(options);
  }

  override createConnection(options: ConnectionOptions & { host?: string; port?: number }): Socket {
    const raw = this.connector(options.host ?? '', options.port ?? 443);
    return tlsConnect({ ...options, socket: raw, ...(this.secureContext ? { secureContext: this.secureContext } : {}) });
  }
}

export interface SecretInterceptor {
  /** Answers the CONNECT, terminates TLS with a leaf for the target's host, and forwards each request with its secrets in. */
  intercept(client: Socket, head: Buffer, passage: Passage): void;
  close(): void;
}

/**
 * The egress proxy's way with a secret's hosts (and only those): TLS ends here with a certificate of the
 * instance's CA, each HTTP/1.1 request (several per connection) is parsed by Node's strict parser — a request
 * with both Content-Length and Transfer-Encoding, or a header with a bare CR/LF, is a 400 before anything
 * goes upstream — gets its secrets put in (secret-headers.ts), and goes upstream over TLS verified against the
 * system's CAs. Every other host keeps the plain CONNECT tunnel (egress-tunnel.ts).
 */
export function secretInterceptor(deps: InterceptDeps): SecretInterceptor {
  const log = deps.log.child({ component: 'egress-secrets' });
  const passages = new WeakMap<object, Passage>();
  const agents = new Map<string, GuardedAgent>();
  const tracked = new WeakSet<Socket>();
  const secureContext = deps.upstreamCa?.length ? createSecureContext({ ca: [...rootCertificates, ...deps.upstreamCa] }) : undefined;
  const agentFor = (target: EgressTarget): GuardedAgent => {
    const key = `${target.host}:${target.port}`;
    let agent = agents.get(key);
    if (!agent) {
      agent = new GuardedAgent(deps.connector, { keepAlive: true, maxSockets: 16, timeout: deps.idleTimeoutMs }, secureContext);
      agents.set(key, agent);
    }
    return agent;
  };

  const server = createServer({ maxHeaderSize: deps.maxHeaderBytes, requireHostHeader: false });
  server.timeout = deps.idleTimeoutMs;
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const passage = passages.get(req.socket);
    if (!passage) return void res.writeHead(500).end();
    const { target } = passage;
    const { headers, used } = headersWithSecrets(req.headers, passage.secrets);
    headers.host ??= target.port === 443 ? target.host : `${target.host}:${target.port}`;
    passage.onRequest(used);
    // SNI carries names only (RFC 6066): an address is verified against the certificate's IP entries.
    const upstream = request({ host: target.host, port: target.port, ...(isIP(target.host) ? {} : { servername: target.host }), method: req.method, path: req.url, headers, agent: agentFor(target), timeout: deps.connectTimeoutMs });
    upstream.on('socket', (socket: Socket) => {
      // A kept-alive upstream socket serves many requests: registered once.
      if (tracked.has(socket)) return;
      tracked.add(socket);
      deps.track(socket);
    });
    upstream.on('timeout', () => upstream.destroy(Object.assign(new Error('upstream timeout'), { code: 'ETIMEDOUT' })));
    upstream.on('response', (answer) => {
      passage.onOutcome(true, answer.statusCode);
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, out);
      answer.pipe(res);
    });
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      log.debug('secret upstream failed', { host: target.host, port: target.port, code: error.code });
      passage.onOutcome(false, undefined, error.code);
      if (res.headersSent) return void res.destroy();
      const forbidden = error.code === FORBIDDEN_ADDRESS;
      const words = forbidden
        ? `Sandpit egress proxy: ${target.host} resolves to an address sandboxes never reach`
        : `Sandpit egress proxy: could not reach ${target.host}:${target.port} safely (${error.code ?? 'error'})`;
      res.writeHead(forbidden ? 403 : 502, { 'content-type': 'text/plain; charset=utf-8', ...(forbidden ? { 'x-sandpit-refused': 'forbidden-address' } : {}) });
      res.end(`${words}\n`);
    });
    req.pipe(upstream);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    log.debug('secret request refused by the parser', { code: error.code });
    if (!socket.writable) return void socket.destroy();
    socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: text/plain\r\n\r\nSandpit egress proxy: bad request (refused before it went anywhere)\n');
  });

  return {
    intercept: (client, head, passage): void => {
      if (head.length > 0) client.unshift(head);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      const leaf = deps.authority.leafFor(passage.target.host);
      const tls = new TLSSocket(client, { isServer: true, key: leaf.key, cert: leaf.cert, ALPNProtocols: ['http/1.1'] });
      tls.on('error', (error: NodeJS.ErrnoException) => {
        log.debug('secret TLS with the sandbox failed', { host: passage.target.host, code: error.code, message: error.message });
        client.destroy();
      });
      client.on('error', () => tls.destroy());
      passages.set(tls, passage);
      server.emit('connection', tls);
    },
    close: (): void => {
      for (const agent of agents.values()) agent.destroy();
      agents.clear();
      server.close();
    },
  };
}

