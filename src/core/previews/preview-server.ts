import { timingSafeEqual } from 'node:crypto';
import { Agent, createServer, request as httpRequest } from 'node:http';
import type {
  ClientRequestArgs,
  IncomingHttpHeaders,
  IncomingMessage,
  OutgoingHttpHeaders,
  Server,
  ServerResponse,
} from 'node:http';
import type { Duplex } from 'node:stream';
import { toErrorBody } from '../../shared/api/errors';
import type { Logger } from '../log';

/** The query parameter of a preview's first link: its capability, exchanged for a cookie at once. */
export const PREVIEW_TOKEN_PARAM = 'sandpit_preview';

export interface PreviewServerOptions {
  token: string;
  /** A new byte stream to the app's port inside the sandbox. */
  open(): Promise<Duplex>;
  log: Logger;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A tunnel to the sandbox as an http.Agent: keep-alive connections, each one a stream over the tunnel. */
class TunnelAgent extends Agent {
  constructor(private readonly openStream: () => Promise<Duplex>) {
    super({ keepAlive: true, maxSockets: 64, maxFreeSockets: 16 });
  }

  override createConnection(
    _options: ClientRequestArgs,
    callback?: (error: Error | null, socket: Duplex) => void,
  ): Duplex | null | undefined {
    this.openStream().then(
      (socket) => {
        callback?.(null, socket);
        // After the request took the socket (on the next tick): the tunnel hands it over paused.
        process.nextTick(() => socket.resume());
      },
      (error: unknown) =>
        callback?.(error instanceof Error ? error : new Error(String(error)), undefined as unknown as Duplex),
    );
    return undefined;
  }
}

/** Cookies of Sandpit's own (this preview's capability, other previews' ones) never reach the app. */
function withoutOurCookies(cookie: string | undefined): string | undefined {
  if (!cookie) return undefined;
  const kept = cookie
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part !== '' && !part.toLowerCase().startsWith('sandpit_'));
  return kept.length ? kept.join('; ') : undefined;
}

function cookieValue(cookie: string | undefined, name: string): string | undefined {
  for (const part of (cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

/**
 * One preview: an HTTP server on 127.0.0.1 with a port (an origin) of its own, never the panel's or the MCP
 * endpoint's. The first link carries the capability, exchanged for an HttpOnly, SameSite=Strict cookie scoped to
 * this preview; without it: 401. A Host that is not this server's (DNS rebinding) is refused; nothing grants CORS.
 * Requests, streamed responses and WebSocket upgrades go to the app over the session's tunnel.
 */
export class PreviewServer {
  private readonly server: Server;
  private readonly agent: TunnelAgent;
  private hostPort = 0;
  private endedWith: string | undefined;
  private readonly upgraded = new Set<Duplex>();

  constructor(private readonly options: PreviewServerOptions) {
    this.agent = new TunnelAgent(() => options.open());
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head));
  }

  get port(): number {
    return this.hostPort;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.hostPort}`;
  }

  private get cookieName(): string {
    return `sandpit_preview_${this.hostPort}`;
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = this.server.address();
    this.hostPort = typeof address === 'object' && address ? address.port : 0;
    return this.hostPort;
  }

  /** The preview ended (its session or app is gone): every request is answered with why, until it is closed. */
  end(reason: string): void {
    this.endedWith = reason;
    this.agent.destroy();
    for (const socket of this.upgraded) socket.destroy();
  }

  async close(): Promise<void> {
    this.end(this.endedWith ?? 'stopped');
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Host must name this very server (a rebound DNS name is refused). */
  private hostOk(headers: IncomingHttpHeaders): boolean {
    const host = headers.host ?? '';
    return host === `127.0.0.1:${this.hostPort}` || host === `localhost:${this.hostPort}`;
  }

  private authorized(req: IncomingMessage): boolean {
    const value = cookieValue(req.headers.cookie, this.cookieName);
    return value !== undefined && same(value, this.options.token);
  }

  private plain(res: ServerResponse, status: number, text: string, extra: OutgoingHttpHeaders = {}): void {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...extra });
    res.end(`${text}\n`);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    if (!this.hostOk(req.headers)) return this.plain(res, 421, `This preview answers only at ${this.origin}.`);
    const url = new URL(req.url ?? '/', this.origin);
    const given = url.searchParams.get(PREVIEW_TOKEN_PARAM);
    if (given !== null) {
      if (!same(given, this.options.token))
        return this.plain(
          res,
          401,
          'This preview link is not valid (it may be from an earlier preview). Open the preview again from Sandpit.',
        );
      url.searchParams.delete(PREVIEW_TOKEN_PARAM);
      // The capability leaves the address bar at once: from here on the cookie (this origin's only) carries it.
      return this.plain(res, 302, 'Opening the preview…', {
        location: `${url.pathname}${url.search}`,
        'set-cookie': `${this.cookieName}=${this.options.token}; Path=/; HttpOnly; SameSite=Strict`,
        'referrer-policy': 'no-referrer',
      });
    }
    if (!this.authorized(req))
      return this.plain(
        res,
        401,
        "This preview needs its link: open it from Sandpit (the session's Preview tab), or use the link preview_port gave.",
      );
    if (this.endedWith) return this.plain(res, 410, `This preview ended: ${this.endedWith}.`);
    const headers: OutgoingHttpHeaders = { ...req.headers };
    const cookie = withoutOurCookies(req.headers.cookie);
    if (cookie) headers.cookie = cookie;
    else delete headers.cookie;
    const upstream = httpRequest({ agent: this.agent, method: req.method, path: req.url, headers }, (answer) => {
      const out: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        // No CORS grant from the app to other origins: the preview is for this origin only.
        if (value !== undefined && !name.startsWith('access-control-')) out[name] = value;
      }
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, out);
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    upstream.on('error', (error) => {
      if (res.headersSent) return res.destroy();
      this.plain(res, 502, toErrorBody(error).message);
    });
    req.pipe(upstream);
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const refuse = (status: string): void => {
      socket.end(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    };
    if (!this.hostOk(req.headers)) return refuse('421 Misdirected Request');
    if (!this.authorized(req)) return refuse('401 Unauthorized');
    if (this.endedWith) return refuse('410 Gone');
    this.options.open().then(
      (upstream) => {
        const lines = [`${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/1.1`];
        for (let i = 0; i < req.rawHeaders.length; i += 2) {
          const name = req.rawHeaders[i]!;
          let value: string | undefined = req.rawHeaders[i + 1];
          if (name.toLowerCase() === 'cookie') value = withoutOurCookies(value);
          if (value !== undefined) lines.push(`${name}: ${value}`);
        }
        upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
        if (head.length) upstream.write(head);
        upstream.resume();
        this.upgraded.add(socket);
        const end = (): void => {
          this.upgraded.delete(socket);
          socket.destroy();
          upstream.destroy();
        };
        socket.on('error', end);
        upstream.on('error', end);
        socket.on('close', end);
        upstream.on('close', end);
        upstream.pipe(socket);
        socket.pipe(upstream);
      },
      (error: unknown) => {
        this.options.log.info('a preview WebSocket could not reach its app', { error: toErrorBody(error).message });
        refuse('502 Bad Gateway');
      },
    );
  }
}
