import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { connect, createServer as createTcpServer } from 'node:net';
import type { AddressInfo, Server as TcpServer, Socket } from 'node:net';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { rawRequest } from './http-client';
import type { RawRequest, RawResponse } from './http-client';
import type { LogFields, Logger } from '../core/log';
import { withTimeout } from '../core/util/with-timeout';
import type { EgressConnector } from '../core/egress/egress-connector';
import { egressCredentials } from '../core/egress/egress-credentials';
import type { EgressCredentials } from '../core/egress/egress-credentials';
import { startEgressProxy } from '../core/egress/egress-proxy';
import type { EgressProxyOptions, EgressRefusal, RunningEgressProxy } from '../core/egress/egress-proxy';

// Every socket of the egress proxy tests goes to 127.0.0.1. Allowed names reach local servers only through the
// injected connector; refused names are never resolved or connected. The proxy serves only requests
// with a live credential: helpers send the harness's (owner `ses-test`) unless a test says otherwise.

export const WAIT_MS = 5_000;

let httpServer: Server;
let echoServer: TcpServer;
export let httpPort: number;
let echoPort: number;
let closedPort: number;
/** The headers of the last request the upstream HTTP server received. */
export let lastUpstreamHeaders: IncomingHttpHeaders = {};
/** The upstream echo server's open sockets. */
export const echoSockets = new Set<Socket>();

async function listen(server: Server | TcpServer): Promise<number> {
  await withTimeout(new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve)), WAIT_MS, 'listen');
  return (server.address() as AddressInfo).port;
}

export interface Harness {
  proxy: RunningEgressProxy;
  refusals: EgressRefusal[];
  connects: string[];
  credentials: EgressCredentials;
  /** `Basic base64("<owner>:<secret>")` with a credential issued to `owner` (default `ses-test`). */
  auth: (owner?: string) => string;
  warnings: Array<{ message: string; fields?: LogFields }>;
}

export const basic = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
/** The Proxy-Authorization of the proxy started last: what the helpers send by default. */
export let defaultAuth = '';

function recordingLogger(warnings: Array<{ message: string; fields?: LogFields }>): Logger {
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message, fields) => void warnings.push({ message, ...(fields ? { fields } : {}) }),
    error: () => undefined,
    child: () => logger,
  };
  return logger;
}

let running: RunningEgressProxy | undefined;

/** The proxy the current test started and has not closed yet. */
export function runningProxy(): RunningEgressProxy | undefined {
  return running;
}
const openSockets = new Set<Socket>();

/** Maps allowed names onto the local servers; anything else fails without touching the network. */
function localConnector(connects: string[]): EgressConnector {
  return (host, port) => {
    connects.push(`${host}:${port}`);
    const local = port === 80 ? httpPort : port === 443 ? echoPort : port === 8080 ? closedPort : undefined;
    const mapped = host === 'pypi-mirror.test' || host === 'files.pythonhosted.org' ? local : undefined;
    if (mapped === undefined) throw new Error(`test connector: ${host}:${port} is not mapped`);
    return connect(mapped, '127.0.0.1');
  };
}

export async function startProxy(extra: Partial<EgressProxyOptions> = {}): Promise<Harness> {
  const refusals: EgressRefusal[] = [];
  const connects: string[] = [];
  const warnings: Harness['warnings'] = [];
  const credentials = egressCredentials();
  const proxy = await startEgressProxy({
    host: '127.0.0.1',
    port: 0,
    allowedSubnet: '127.0.0.0/8',
    credentials,
    allowedHosts: ['pypi-mirror.test', '*.pythonhosted.org'],
    allowedPorts: [80, 443, 8080],
    onRefused: (event) => refusals.push(event),
    connect: localConnector(connects),
    log: recordingLogger(warnings),
    ...extra,
  });
  running = proxy;
  const auth = (owner = 'ses-test'): string => basic(owner, credentials.issue(owner));
  defaultAuth = auth();
  return { proxy, refusals, connects, credentials, auth, warnings };
}

/** rawRequest through the proxy with the default credential (unless the headers carry their own, or `null`). */
export function proxied(
  options: Omit<RawRequest, 'headers'> & { headers?: RawRequest['headers'] },
  auth: string | null = defaultAuth,
): Promise<RawResponse> {
  const headers = { ...(auth === null ? {} : { 'proxy-authorization': auth }), ...options.headers };
  return rawRequest({ ...options, headers });
}

export function dial(port: number): Socket {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => socket.destroy());
  openSockets.add(socket);
  return socket;
}

/** Everything the socket receives until it closes. */
export function readAll(socket: Socket): Promise<string> {
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  return withTimeout(
    new Promise<string>((resolve) => socket.once('close', () => resolve(Buffer.concat(chunks).toString('latin1')))),
    WAIT_MS,
    'reading to close',
  );
}

/** Sends a CONNECT and returns the status, plus any bytes that came after the response head. */
export async function sendConnect(
  port: number,
  target: string,
  extraLines: string[] = [`Proxy-Authorization: ${defaultAuth}`],
  after = '',
): Promise<{ socket: Socket; status: number; rest: Buffer; head: string }> {
  const socket = dial(port);
  socket.write(
    `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${extraLines.map((l) => `${l}\r\n`).join('')}\r\n${after}`,
  );
  let buffered = Buffer.alloc(0);
  return withTimeout(
    new Promise((resolve, reject) => {
      const onData = (chunk: Buffer): void => {
        buffered = Buffer.concat([buffered, chunk]);
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        socket.off('data', onData);
        socket.pause();
        resolve({
          socket,
          status: Number(/^HTTP\/1\.1 (\d{3})/.exec(buffered.toString('latin1'))?.[1] ?? 0),
          rest: buffered.subarray(end + 4),
          head: buffered.subarray(0, end).toString('latin1'),
        });
      };
      socket.on('data', onData);
      socket.once('close', () => reject(new Error(`proxy closed before answering CONNECT ${target}`)));
    }),
    WAIT_MS,
    `CONNECT ${target}`,
  );
}

/** Reads exactly `length` bytes (after `initial`) from a paused socket. */
export function readBytes(socket: Socket, length: number, initial: Buffer = Buffer.alloc(0)): Promise<Buffer> {
  let got = initial;
  return withTimeout(
    new Promise((resolve) => {
      const check = (): void => {
        if (got.length < length) return;
        socket.off('data', onData);
        resolve(got);
      };
      const onData = (chunk: Buffer): void => {
        got = Buffer.concat([got, chunk]);
        check();
      };
      socket.on('data', onData);
      socket.resume();
      check();
    }),
    WAIT_MS,
    `reading ${length} bytes`,
  );
}

/** Sends raw bytes on a fresh connection and returns everything received until the proxy closes it. */
export async function exchange(port: number, bytes: string): Promise<string> {
  const socket = dial(port);
  const answer = readAll(socket);
  socket.write(bytes);
  return answer;
}

/**
 * Registers the upstream servers (an HTTP index, a TCP echo server, a closed port) for a test file, and
 * closes whatever a test opened after it.
 */
export function useEgressProxyHarness(): void {
  beforeAll(async () => {
    httpServer = createServer((req, res) => {
      lastUpstreamHeaders = req.headers;
      res.writeHead(200, [
        'Content-Type',
        'text/html',
        'X-Index',
        'yes',
        'X-Upstream-Hop',
        'secret',
        'Connection',
        'X-Upstream-Hop',
        'Keep-Alive',
        'timeout=99, max=7',
      ]);
      res.end(`simple index at ${req.url}`);
    });
    echoServer = createTcpServer({ allowHalfOpen: false }, (socket) => {
      echoSockets.add(socket);
      socket.once('close', () => echoSockets.delete(socket));
      socket.on('error', () => socket.destroy());
      socket.pipe(socket);
    });
    httpPort = await listen(httpServer);
    echoPort = await listen(echoServer);
    const spare = createTcpServer();
    closedPort = await listen(spare);
    await withTimeout(new Promise<void>((resolve) => spare.close(() => resolve())), WAIT_MS, 'close spare');
  });

  afterAll(async () => {
    httpServer.closeAllConnections();
    for (const socket of echoSockets) socket.destroy();
    await withTimeout(
      Promise.all([new Promise((r) => httpServer.close(r)), new Promise((r) => echoServer.close(r))]),
      WAIT_MS,
      'close servers',
    );
  });

  afterEach(async () => {
    for (const socket of openSockets) socket.destroy();
    openSockets.clear();
    await running?.close();
    running = undefined;
  });
}
