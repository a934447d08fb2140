import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SandpitError } from '../../shared/api/errors';
import type { Sandpit } from '../app';

export interface HttpServerOptions {
  sandpit: Sandpit;
  port: number;
  /** Always a loopback address; 127.0.0.1 by default. */
  host?: string;
}

export interface RunningHttpServer {
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(text);
}

/** The one HTTP server of a Sandpit instance, on loopback only. */
export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const host = options.host ?? '127.0.0.1';
  if (host !== '127.0.0.1' && host !== '::1' && host !== 'localhost') {
    throw new SandpitError('INVALID_INPUT', `Sandpit only listens on loopback, not on ${host}.`);
  }
  const { sandpit } = options;
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/health') {
      sendJson(res, 200, { ok: true, engine: sandpit.engine.current.state, sessions: sandpit.sessions.list().length });
      return;
    }
    sendJson(res, 404, { ok: false, error: { code: 'NOT_FOUND', message: `No route ${req.method ?? ''} ${path}` } });
  });
  server.headersTimeout = 20_000;
  server.requestTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new SandpitError('CONFLICT', `Port ${options.port} on ${host} is already in use. Pick another with --port.`) : error),
    );
    server.listen(options.port, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
