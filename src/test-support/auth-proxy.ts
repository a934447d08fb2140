import { Agent, createServer, request } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback reverse proxy for tests that drive our HTTP server with a client that cannot send headers
 * (the MCP conformance CLI): every request is forwarded to 127.0.0.1:`targetPort` with
 * `Authorization: Bearer <token>` added (unless the request brings its own).
 *
 * Host and Origin are rewritten only where they name the proxy itself (`127.0.0.1|localhost|[::1]:<proxyPort>`,
 * and the same as `http://` origins): the name stays, the port becomes the target's. Any other Host or Origin
 * passes through untouched, so the server's own DNS-rebinding guard still sees (and must refuse) it.
 * Bodies and responses are piped both ways without buffering (SSE streams arrive as they are written),
 * and a client that goes away takes its upstream request with it.
 */
export interface AuthProxy {
  /** `http://127.0.0.1:PORT` (no trailing slash). */
  url: string;
  port: number;
  /** Requests forwarded so far. */
  forwarded(): number;
  close(): Promise<void>;
}

export interface AuthProxyOptions {
  /** The port of the server behind the proxy (on 127.0.0.1). */
  targetPort: number;
  token: string;
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'] as const;

/** Headers that belong to one connection and are never forwarded (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function withoutHopByHop(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const listed = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name !== ''),
  );
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || listed.has(name)) continue;
    out[name] = value;
  }
  return out;
}

/** `name:proxyPort` for a loopback name becomes `name:targetPort`; anything else is returned as is. */
export function rewriteHost(host: string, proxyPort: number, targetPort: number): string {
  const lower = host.toLowerCase();
  for (const name of LOOPBACK_NAMES) if (lower === `${name}:${proxyPort}`) return `${name}:${targetPort}`;
  return host;
}

/** `http://name:proxyPort` for a loopback name becomes `http://name:targetPort`; anything else is returned as is. */
export function rewriteOrigin(origin: string, proxyPort: number, targetPort: number): string {
  const lower = origin.toLowerCase();
  for (const name of LOOPBACK_NAMES)
    if (lower === `http://${name}:${proxyPort}`) return `http://${name}:${targetPort}`;
  return origin;
}

export async function startAuthProxy(options: AuthProxyOptions): Promise<AuthProxy> {
  const { targetPort, token } = options;
  const agent = new Agent({ keepAlive: true });
  let proxyPort = 0;
  let forwarded = 0;

  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    forwarded += 1;
    const headers = withoutHopByHop(req.headers);
    if (typeof req.headers.host === 'string') headers.host = rewriteHost(req.headers.host, proxyPort, targetPort);
    if (typeof req.headers.origin === 'string') headers.origin = rewriteOrigin(req.headers.origin, proxyPort, targetPort);
    headers.authorization ??= `Bearer ${token}`;

    const upstream = request({
      host: '127.0.0.1',
      port: targetPort,
      method: req.method,
      path: req.url,
      headers,
      agent,
    });
    upstream.on('socket', (socket) => socket.setNoDelay(true));
    upstream.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, withoutHopByHop(answer.headers));
      // SSE: the client must see the headers before the first event.
      res.flushHeaders();
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    upstream.on('error', (error) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`auth proxy: the server behind the proxy did not answer: ${error.message}`);
    });
    // The client went away before the answer was complete: so does the request we made for it.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  };

  const server = createServer(forward);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  proxyPort = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${proxyPort}`,
    port: proxyPort,
    forwarded: () => forwarded,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}
