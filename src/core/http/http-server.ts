import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SandpitError, toErrorBody } from '../../shared/api/errors';
import type { Logger } from '../log';
import { apiRoutes } from './api-routes';
import { closeAfterAnswer, readJsonBody } from './body';
import { PANEL_PRINCIPAL, guardRequest, methodHasBody } from './guard';
import { BASE_HEADERS, HttpError, sendError, sendErrorBody } from './http-errors';
import { DEFAULT_HTTP_LIMITS } from './http-limits';
import type { HttpLimits } from './http-limits';
import type { HttpSandpit } from './http-sandpit';
import { InFlightLimit } from './in-flight-limit';
import { panelRoutes } from './panel-routes';
import { restRoutes } from './rest-routes';
import { createRouter, isHttpMethod } from './router';
import type { HttpRoute, Router } from './router';

export type { HttpMethod, HttpRoute, RouteContext, RouteHandler } from './router';

/**
 * Extra handlers mounted on the server (e.g. `/mcp`). They pass the same guard as every route: Host,
 * Origin, bearer token (unless `public`), JSON content type and body limit for POST/PUT/PATCH, and the
 * per-token in-flight limit. The handler gets the raw request/response and `ctx.body` already parsed.
 */
export type HttpMount = HttpRoute;

export interface HttpServerOptions {
  sandpit: HttpSandpit;
  /** 0 picks a free port. */
  port: number;
  /** The clients' bearer token (MCP over HTTP, REST). */
  token: string;
  /** The web panel's token: opens /api (the panel's view of everything). Without it, /api answers 403. */
  panelToken?: string;
  /** Always loopback: 127.0.0.1 (default) or ::1. */
  host?: '127.0.0.1' | '::1';
  mounts?: readonly HttpMount[];
  /** The built panel's folder, served at `/` (web mode); false to serve no panel. Default: the repository's out/renderer. */
  panelDir?: string | false;
  limits?: Partial<HttpLimits>;
}

export interface RunningHttpServer {
  /** `http://127.0.0.1:PORT` (no trailing slash). */
  url: string;
  port: number;
  server: Server;
  /** Switches the bearer token at once: from the next request on, only the new one is accepted. */
  setToken(token: string): void;
  /** Switches the web panel's token: tabs with the old link are refused from the next request on. */
  setPanelToken(token: string): void;
  close(): Promise<void>;
}

const PUBLIC_PRINCIPAL = 'public';

/** The one HTTP server of a Sandpit instance, on loopback only: /health, REST, /api (+ SSE) and the mounts. */
export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const host: string = options.host ?? '127.0.0.1';
  if (host !== '127.0.0.1' && host !== '::1') {
    throw new SandpitError('INVALID_INPUT', `Sandpit only listens on loopback (127.0.0.1 or ::1), not on ${host}.`);
  }
  assertStrongToken(options.token);
  if (options.panelToken !== undefined) assertStrongToken(options.panelToken);
  const { sandpit } = options;
  const limits: HttpLimits = { ...DEFAULT_HTTP_LIMITS, ...options.limits };
  const panel = options.panelDir === false ? [] : panelRoutes(options.panelDir);
  const router = createRouter([...restRoutes(sandpit), ...apiRoutes(sandpit), ...(options.mounts ?? []), ...panel]);
  const log = sandpit.log.child({ component: 'http' });
  const state: ServeState = {
    router,
    limits,
    log,
    token: options.token,
    panelToken: options.panelToken,
    port: 0,
    inFlight: new InFlightLimit(limits.maxInFlightPerToken),
    streams: new InFlightLimit(limits.maxStreamsPerToken),
    panelStreams: new Set(),
  };

  const server = createServer((req, res) => {
    handle(state, req, res).catch((error: unknown) => {
      log.error('request failed', { method: req.method, error: toErrorBody(error).message });
      if (!res.headersSent) sendError(res, error);
      else res.destroy();
    });
  });
  server.headersTimeout = 20_000;
  // Runs and event streams may last long; bodies have their own deadline (limits.bodyTimeoutMs).
  server.requestTimeout = 0;
  server.maxConnections = limits.maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new SandpitError('CONFLICT', `Port ${options.port} on ${host} is already in use. Pick another with --port.`)
          : error,
      ),
    );
    server.listen(options.port, host, () => resolve());
  });
  state.port = (server.address() as AddressInfo).port;
  const url = `http://${host === '::1' ? '[::1]' : host}:${state.port}`;
  log.info('listening', { url });
  return {
    url,
    port: state.port,
    server,
    setToken: (token) => {
      assertStrongToken(token);
      state.token = token;
      log.info('access token switched');
    },
    setPanelToken: (token) => {
      assertStrongToken(token);
      state.panelToken = token;
      // Event streams opened with the old link end now: their tabs reconnect, are refused, and say so.
      const ended = state.panelStreams.size;
      for (const res of state.panelStreams) res.destroy();
      state.panelStreams.clear();
      log.info('panel token switched', { streamsEnded: ended });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function assertStrongToken(token: string): void {
  if (token.length < 43) throw new SandpitError('INVALID_INPUT', 'The access token must have at least 256 bits.');
}

interface ServeState {
  router: Router;
  limits: HttpLimits;
  log: Logger;
  token: string;
  panelToken?: string;
  port: number;
  inFlight: InFlightLimit;
  streams: InFlightLimit;
  /** The panel's open event streams: a new panel token ends them (the old link must not keep hearing events). */
  panelStreams: Set<ServerResponse>;
}

async function handle(state: ServeState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  for (const [name, value] of Object.entries(BASE_HEADERS)) res.setHeader(name, value);
  const method = req.method ?? 'GET';
  let url: URL;
  try {
    url = new URL(req.url ?? '/', 'http://127.0.0.1');
  } catch {
    sendError(res, new SandpitError('INVALID_INPUT', 'The request URL is not valid.'));
    return;
  }
  const route = state.router.find(url.pathname);
  const allowed = route !== undefined && isHttpMethod(method) && route.methods.includes(method);
  const decision = guardRequest(
    { method, headers: req.headers, isPublic: allowed && route.public === true, isPanel: route?.panel === true },
    { port: state.port, token: state.token, panelToken: state.panelToken },
  );
  if (decision.kind === 'reject') {
    state.log.info('request refused', {
      method,
      path: url.pathname,
      status: decision.status,
      code: decision.error.code,
    });
    sendErrorBody(res, decision.status, decision.error, decision.headers);
    return;
  }
  if (decision.kind === 'preflight') {
    res.writeHead(204);
    res.end();
    return;
  }
  if (!route) {
    sendError(res, new SandpitError('NOT_FOUND', `There is no ${url.pathname} here.`));
    return;
  }
  if (!allowed) {
    sendError(res, new SandpitError('NOT_FOUND', `${url.pathname} does not answer ${method}.`), 405, {
      allow: route.methods.join(', '),
    });
    return;
  }
  const principal = decision.principal ?? PUBLIC_PRINCIPAL;
  if (decision.principal !== undefined) {
    const limit = route.streams?.includes(method) ? state.streams : state.inFlight;
    const release = limit.tryAcquire(decision.principal);
    if (!release) {
      sendError(
        res,
        new SandpitError(
          'LIMIT_EXCEEDED',
          `Too many requests at once (at most ${limit.max} per token). Retry shortly.`,
        ),
        429,
        { 'retry-after': '1' },
      );
      return;
    }
    res.once('close', release);
    if (decision.principal === PANEL_PRINCIPAL && route.streams?.includes(method)) {
      state.panelStreams.add(res);
      res.once('close', () => state.panelStreams.delete(res));
    }
  }
  let body: unknown;
  if (methodHasBody(method)) {
    try {
      body = await readJsonBody(req, { maxBytes: state.limits.maxBodyBytes, timeoutMs: state.limits.bodyTimeoutMs });
    } catch (error) {
      if (error instanceof HttpError && error.closeConnection) closeAfterAnswer(req, res);
      sendError(res, error);
      return;
    }
  }
  await route.handler(req, res, { principal, body, url });
}
