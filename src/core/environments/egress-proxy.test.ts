import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { connect, createServer as createTcpServer } from 'node:net';
import type { AddressInfo, Server as TcpServer, Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../../test-support/http-client';
import type { RawRequest, RawResponse } from '../../test-support/http-client';
import type { LogFields, Logger } from '../log';
import { pollUntil, withTimeout } from '../util/with-timeout';
import { guardedConnector } from './egress-connector';
import type { EgressConnector } from './egress-connector';
import { egressCredentials } from './egress-credentials';
import type { EgressCredentials } from './egress-credentials';
import { startEgressProxy } from './egress-proxy';
import type { EgressProxyOptions, EgressRefusal, RunningEgressProxy } from './egress-proxy';

// Every socket in this file goes to 127.0.0.1. Allowed names reach local servers only through the
// injected connector; refused names are never resolved or connected. The proxy serves only requests
// with a live credential: helpers send the harness's (owner `ses-test`) unless a test says otherwise.

const WAIT_MS = 5_000;

let httpServer: Server;
let echoServer: TcpServer;
let httpPort: number;
let echoPort: number;
let closedPort: number;
let lastUpstreamHeaders: IncomingHttpHeaders = {};
const echoSockets = new Set<Socket>();

async function listen(server: Server | TcpServer): Promise<number> {
  await withTimeout(new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve)), WAIT_MS, 'listen');
  return (server.address() as AddressInfo).port;
}

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

interface Harness {
  proxy: RunningEgressProxy;
  refusals: EgressRefusal[];
  connects: string[];
  credentials: EgressCredentials;
  /** `Basic base64("<owner>:<secret>")` with a credential issued to `owner` (default `ses-test`). */
  auth: (owner?: string) => string;
  warnings: Array<{ message: string; fields?: LogFields }>;
}

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
/** The Proxy-Authorization of the proxy started last: what the helpers send by default. */
let defaultAuth = '';

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
const openSockets = new Set<Socket>();

afterEach(async () => {
  for (const socket of openSockets) socket.destroy();
  openSockets.clear();
  await running?.close();
  running = undefined;
});

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

async function startProxy(extra: Partial<EgressProxyOptions> = {}): Promise<Harness> {
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
function proxied(options: Omit<RawRequest, 'headers'> & { headers?: RawRequest['headers'] }, auth: string | null = defaultAuth): Promise<RawResponse> {
  const headers = { ...(auth === null ? {} : { 'proxy-authorization': auth }), ...options.headers };
  return rawRequest({ ...options, headers });
}

function dial(port: number): Socket {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => socket.destroy());
  openSockets.add(socket);
  return socket;
}

/** Everything the socket receives until it closes. */
function readAll(socket: Socket): Promise<string> {
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  return withTimeout(
    new Promise<string>((resolve) => socket.once('close', () => resolve(Buffer.concat(chunks).toString('latin1')))),
    WAIT_MS,
    'reading to close',
  );
}

/** Sends a CONNECT and returns the status, plus any bytes that came after the response head. */
async function sendConnect(
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
function readBytes(socket: Socket, length: number, initial: Buffer = Buffer.alloc(0)): Promise<Buffer> {
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

describe('egress proxy: CONNECT', () => {
  it('tunnels bytes both ways to an allowed name, including bytes sent right after the CONNECT head', async () => {
    const { proxy, connects } = await startProxy();
    const { socket, status, rest } = await sendConnect(proxy.port, 'pypi-mirror.test:443', undefined, 'early;');
    expect(status).toBe(200);
    expect(connects).toEqual(['pypi-mirror.test:443']);
    const payload = Buffer.alloc(1024 * 1024, 'x');
    socket.write(payload);
    const echoed = await readBytes(socket, 'early;'.length + payload.length, rest);
    expect(echoed.subarray(0, 6).toString()).toBe('early;');
    expect(echoed.subarray(6).equals(payload)).toBe(true);
    expect(proxy.stats()).toMatchObject({ tunnels: 1, forwarded: 1, refused: 0 });
    // A client end travels to the server, whose end travels back: the tunnel closes cleanly.
    const closed = withTimeout(new Promise((r) => socket.once('close', r)), WAIT_MS, 'tunnel close');
    socket.end();
    await closed;
    await pollUntil(() => (proxy.stats().tunnels === 0 ? true : undefined), WAIT_MS, 'tunnel count back to 0');
  });

  it('refuses a host not on the list with 403, reports it, and never connects or resolves', async () => {
    const { proxy, refusals, connects, auth } = await startProxy();
    const { socket, status } = await sendConnect(proxy.port, 'not-allowed.invalid:443', [
      `Proxy-Authorization: ${auth('sess-42')}`,
    ]);
    expect(status).toBe(403);
    socket.resume();
    expect(connects).toEqual([]);
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatchObject({
      host: 'not-allowed.invalid',
      port: 443,
      reason: 'host-not-allowed',
      client: 'sess-42',
    });
    expect(new Date(refusals[0]!.time).toISOString()).toBe(refusals[0]!.time);
  });

  it("lets one session reach its environment's own extra host, and nobody else; reports what it let through", async () => {
    const passages: Array<{ host: string; client: string }> = [];
    const { proxy, refusals, connects, auth } = await startProxy({
      // files.pythonhosted.org is on the global list; this owner's environment adds a mapped local name too.
      allowedHosts: ['pypi-mirror.test'],
      extraHostsFor: (owner) => (owner === 'ses-extra' ? ['files.pythonhosted.org'] : []),
      onAllowed: (event) => passages.push({ host: event.host, client: event.client }),
    });
    const mine = await sendConnect(proxy.port, 'files.pythonhosted.org:443', [`Proxy-Authorization: ${auth('ses-extra')}`]);
    expect(mine.status).toBe(200);
    mine.socket.destroy();
    const other = await sendConnect(proxy.port, 'files.pythonhosted.org:443', [`Proxy-Authorization: ${auth('ses-other')}`]);
    expect(other.status).toBe(403);
    other.socket.resume();
    expect(connects).toEqual(['files.pythonhosted.org:443']);
    expect(refusals).toEqual([expect.objectContaining({ host: 'files.pythonhosted.org', reason: 'host-not-allowed', client: 'ses-other' })]);
    expect(passages).toEqual([{ host: 'files.pythonhosted.org', client: 'ses-extra' }]);
  });

  it('matches *.pythonhosted.org wildcards but not look-alike names', async () => {
    const { proxy, refusals, connects } = await startProxy();
    expect((await sendConnect(proxy.port, 'files.pythonhosted.org:443')).status).toBe(200);
    expect((await sendConnect(proxy.port, 'pythonhosted.org.evil.invalid:443')).status).toBe(403);
    expect((await sendConnect(proxy.port, 'pythonhosted.org:443')).status).toBe(403);
    expect(connects).toEqual(['files.pythonhosted.org:443']);
    expect(refusals.map((r) => r.host)).toEqual(['pythonhosted.org.evil.invalid', 'pythonhosted.org']);
  });

  it('refuses unlisted IP literals, numeric host forms, ports not allowed and garbage targets', async () => {
    const { proxy, refusals, connects } = await startProxy();
    for (const target of [
      '127.0.0.1:443',
      '[::1]:443',
      '0x7f.1:443',
      '2130706433:443',
      'pypi-mirror.test:22',
      'pypi-mirror.test',
      'a@b:443',
    ]) {
      expect((await sendConnect(proxy.port, target)).status, target).toBe(403);
    }
    expect(connects).toEqual([]);
    expect(refusals.map((r) => r.reason)).toEqual([
      'ip-literal-not-allowed',
      'ip-literal-not-allowed',
      'ip-literal-not-allowed',
      'ip-literal-not-allowed',
      'port-not-allowed',
      'bad-target',
      'bad-target',
    ]);
    expect(refusals.every((r) => r.client === 'ses-test')).toBe(true);
  });

  it('with the default connector, refuses a listed loopback literal without connecting', async () => {
    const { proxy, refusals } = await startProxy({ allowedHosts: ['127.0.0.1'], connect: guardedConnector });
    expect((await sendConnect(proxy.port, '127.0.0.1:443')).status).toBe(403);
    expect(refusals[0]).toMatchObject({ host: '127.0.0.1', port: 443, reason: 'forbidden-address' });
  });

  it('answers 502 when the allowed upstream is down or the connector throws', async () => {
    const { proxy } = await startProxy({ allowedHosts: ['pypi-mirror.test', 'unmapped.test'] });
    expect((await sendConnect(proxy.port, 'pypi-mirror.test:8080')).status).toBe(502);
    expect((await sendConnect(proxy.port, 'unmapped.test:443')).status).toBe(502);
    expect((await proxied({ port: proxy.port, path: 'http://unmapped.test/' })).status).toBe(502);
  });

  it('closes an idle tunnel after idleTimeoutMs', async () => {
    const { proxy } = await startProxy({ idleTimeoutMs: 200 });
    const { socket, status } = await sendConnect(proxy.port, 'pypi-mirror.test:443');
    expect(status).toBe(200);
    socket.resume();
    await withTimeout(new Promise((r) => socket.once('close', r)), WAIT_MS, 'idle tunnel close');
    await pollUntil(() => (echoSockets.size === 0 ? true : undefined), WAIT_MS, 'upstream closed');
  });
});

describe('egress proxy: plain HTTP', () => {
  it('forwards an absolute-URI GET and strips hop-by-hop headers both ways', async () => {
    const { proxy, connects, auth } = await startProxy();
    const res = await proxied({
      port: proxy.port,
      path: 'http://pypi-mirror.test/simple/numpy/?x=1',
      headers: {
        host: 'pypi-mirror.test',
        'proxy-authorization': auth('s1'),
        'proxy-connection': 'keep-alive',
        connection: 'x-client-hop',
        'x-client-hop': 'secret',
        'keep-alive': 'timeout=5',
        te: 'trailers',
        'x-end-to-end': 'kept',
      },
    });
    expect(res.status).toBe(200);
    expect(res.text).toBe('simple index at /simple/numpy/?x=1');
    expect(res.headers['x-index']).toBe('yes');
    expect(res.headers['x-upstream-hop']).toBeUndefined();
    expect(res.headers['keep-alive']).not.toBe('timeout=99, max=7');
    expect(connects).toEqual(['pypi-mirror.test:80']);
    expect(lastUpstreamHeaders.host).toBe('pypi-mirror.test');
    expect(lastUpstreamHeaders['x-end-to-end']).toBe('kept');
    for (const name of ['proxy-authorization', 'proxy-connection', 'x-client-hop', 'keep-alive', 'te']) {
      expect(lastUpstreamHeaders[name], name).toBeUndefined();
    }
  });

  it('refuses IP literals, non-proxy requests, https URIs, other methods and unlisted hosts with 403', async () => {
    const { proxy, refusals, connects, auth } = await startProxy();
    const cases: [string, string, string][] = [
      ['GET', `http://127.0.0.1:${httpPort}/`, 'ip-literal-not-allowed'],
      ['GET', 'http://0x7f.1/', 'ip-literal-not-allowed'],
      ['GET', '/', 'not-a-proxy-request'],
      ['GET', 'https://pypi-mirror.test/', 'scheme-not-supported'],
      ['POST', 'http://pypi-mirror.test/', 'method-not-allowed'],
      ['GET', 'http://not-allowed.invalid/simple/', 'host-not-allowed'],
      ['GET', 'http://pypi-mirror.test:8081/', 'port-not-allowed'],
    ];
    for (const [method, path, reason] of cases) {
      const res = await proxied({
        port: proxy.port,
        method,
        path,
        headers: { 'proxy-authorization': auth('s2') },
      });
      expect(res.status, path).toBe(403);
      expect(res.headers['x-sandpit-refused'], path).toBe(reason);
    }
    expect(connects).toEqual([]);
    expect(refusals.map((r) => r.reason)).toEqual(cases.map((c) => c[2]));
    expect(refusals[0]).toMatchObject({ host: '127.0.0.1', port: httpPort, client: 's2' });
  });

  it('refuses protocol upgrades, loopback literals behind the default connector, and survives a throwing onRefused', async () => {
    const { proxy, connects } = await startProxy();
    const socket = dial(proxy.port);
    const answer = readAll(socket);
    socket.write(
      `GET http://pypi-mirror.test/ws HTTP/1.1\r\nHost: pypi-mirror.test\r\nProxy-Authorization: ${defaultAuth}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n`,
    );
    expect(await answer).toMatch(/^HTTP\/1\.1 403 [^]*X-Sandpit-Refused: upgrade-not-supported/);
    expect(connects).toEqual([]);
    await proxy.close();

    const guarded = await startProxy({ allowedHosts: ['127.0.0.1'], connect: guardedConnector });
    const res = await proxied({ port: guarded.proxy.port, path: 'http://127.0.0.1/' });
    expect(res.status).toBe(403);
    expect(guarded.refusals[0]).toMatchObject({ host: '127.0.0.1', port: 80, reason: 'forbidden-address' });
    await guarded.proxy.close();

    const throwing = await startProxy({
      onRefused: () => {
        throw new Error('listener bug');
      },
    });
    expect((await proxied({ port: throwing.proxy.port, path: 'http://not-allowed.invalid/' })).status).toBe(403);
    expect(throwing.proxy.stats().refused).toBe(1);
  });

  it('answers 502 when the upstream refuses the connection', async () => {
    const { proxy } = await startProxy();
    const res = await proxied({ port: proxy.port, path: 'http://pypi-mirror.test:8080/' });
    expect(res.status).toBe(502);
  });

  it('applies a replaced allow-list to new requests', async () => {
    const { proxy } = await startProxy();
    proxy.setAllowedHosts(['files.pythonhosted.org']);
    expect((await proxied({ port: proxy.port, path: 'http://pypi-mirror.test/' })).status).toBe(403);
    expect((await proxied({ port: proxy.port, path: 'http://files.pythonhosted.org/' })).status).toBe(200);
    expect(() => proxy.setAllowedHosts(['*'])).toThrow();
    expect((await proxied({ port: proxy.port, path: 'http://files.pythonhosted.org/' })).status).toBe(200);
  });
});

describe('egress proxy: limits and lifecycle', () => {
  it('answers a header flood with 431 and stays up', async () => {
    const { proxy, connects } = await startProxy({ maxHeaderBytes: 8 * 1024 });
    const socket = dial(proxy.port);
    const answer = readAll(socket);
    const flood = Array.from({ length: 500 }, (_, i) => `X-Flood-${i}: ${'a'.repeat(100)}\r\n`).join('');
    socket.write(`GET http://pypi-mirror.test/ HTTP/1.1\r\nHost: pypi-mirror.test\r\nProxy-Authorization: ${defaultAuth}\r\n${flood}\r\n`);
    expect(await answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(connects).toEqual([]);
    expect((await proxied({ port: proxy.port, path: 'http://pypi-mirror.test/' })).status).toBe(200);
  });

  it('drops connections beyond maxConnections and accepts again once one closes', async () => {
    const { proxy } = await startProxy({ maxConnections: 2 });
    const first = dial(proxy.port);
    dial(proxy.port);
    await pollUntil(() => (proxy.stats().connections === 2 ? true : undefined), WAIT_MS, 'two connections');
    const third = dial(proxy.port);
    const thirdGot = await readAll(third);
    expect(thirdGot).toBe('');
    expect(proxy.stats().dropped).toBe(1);
    first.destroy();
    await pollUntil(() => (proxy.stats().connections === 1 ? true : undefined), WAIT_MS, 'one connection');
    expect((await sendConnect(proxy.port, 'pypi-mirror.test:443')).status).toBe(200);
  });

  it('close() ends open tunnels, upstream sockets and the listener', async () => {
    const { proxy } = await startProxy();
    const { socket, status } = await sendConnect(proxy.port, 'pypi-mirror.test:443');
    expect(status).toBe(200);
    await pollUntil(() => (echoSockets.size === 1 ? true : undefined), WAIT_MS, 'upstream connected');
    const idle = dial(proxy.port);
    const clientClosed = readAll(socket);
    const idleClosed = readAll(idle);
    await pollUntil(() => (proxy.stats().connections === 2 ? true : undefined), WAIT_MS, 'two connections');
    await proxy.close();
    await clientClosed;
    await idleClosed;
    await pollUntil(() => (echoSockets.size === 0 ? true : undefined), WAIT_MS, 'upstream closed');
    await expect(
      proxied({ port: proxy.port, path: 'http://pypi-mirror.test/', timeoutMs: WAIT_MS }),
    ).rejects.toThrow(/ECONNREFUSED/);
    await proxy.close();
  });
});

/** Sends raw bytes on a fresh connection and returns everything received until the proxy closes it. */
async function exchange(port: number, bytes: string): Promise<string> {
  const socket = dial(port);
  const answer = readAll(socket);
  socket.write(bytes);
  return answer;
}

describe('egress proxy: only credentials it issued get through', () => {
  it('answers a CONNECT without Proxy-Authorization with 407 and a Basic challenge, even to an allowed host', async () => {
    const { proxy, refusals, connects } = await startProxy();
    const { socket, status, head } = await sendConnect(proxy.port, 'pypi-mirror.test:443', []);
    socket.resume();
    expect(status).toBe(407);
    expect(head).toMatch(/\r\nProxy-Authenticate: Basic realm="Sandpit egress proxy"/);
    expect(head).toMatch(/\r\nX-Sandpit-Refused: proxy-auth-required/);
    expect(connects).toEqual([]);
    expect(refusals).toEqual([{ host: 'pypi-mirror.test', port: 443, time: expect.any(String) as unknown, reason: 'proxy-auth-required' }]);
    expect(proxy.stats()).toMatchObject({ forwarded: 0, refused: 1, tunnels: 0 });
  });

  it('answers a plain-HTTP request without Proxy-Authorization with 407 and never forwards it', async () => {
    const { proxy, refusals, connects } = await startProxy();
    const res = await proxied({ port: proxy.port, path: 'http://pypi-mirror.test/simple/' }, null);
    expect(res.status).toBe(407);
    expect(res.headers['proxy-authenticate']).toBe('Basic realm="Sandpit egress proxy"');
    expect(res.headers['x-sandpit-refused']).toBe('proxy-auth-required');
    expect(res.text).not.toContain('simple index');
    expect(connects).toEqual([]);
    expect(refusals.map((r) => [r.reason, r.client])).toEqual([['proxy-auth-required', undefined]]);
  });

  it('refuses made-up, guessed and borrowed credentials with 407 (CONNECT and plain HTTP), attributing them to nobody', async () => {
    const { proxy, refusals, connects, credentials, auth } = await startProxy();
    const secretOfA = credentials.issue('ses-a');
    auth('ses-b');
    const forged = [
      basic('session', 'ses-a'), // the old unauthenticated label
      basic('ses-a', ''), // the right name, no secret
      basic('ses-a', 'x'.repeat(secretOfA.length)), // a guess of the right length
      basic('ses-a', `${secretOfA}x`), // the secret with a byte more
      basic('ses-a', secretOfA.slice(0, -1)), // the secret with a byte less
      basic('ses-a', secretOfA.toUpperCase()), // case changed
      basic('ses-b', secretOfA), // a's secret claimed as b
      basic('ses-unknown', secretOfA), // a's secret under a name never issued
      `Bearer ${secretOfA}`, // another scheme
      `Basic ${Buffer.from(secretOfA).toString('base64')}`, // no user name
      'Basic !!!not-base64!!!',
    ];
    for (const header of forged) {
      expect((await sendConnect(proxy.port, 'pypi-mirror.test:443', [`Proxy-Authorization: ${header}`])).status, header).toBe(407);
      expect((await proxied({ port: proxy.port, path: 'http://pypi-mirror.test/' }, header)).status, header).toBe(407);
    }
    expect(connects).toEqual([]);
    expect(refusals).toHaveLength(forged.length * 2);
    expect(refusals.every((r) => r.reason === 'proxy-auth-required' && r.client === undefined)).toBe(true);
    // The real credential still works: the refusals above were about the credentials, not the targets.
    expect((await proxied({ port: proxy.port, path: 'http://pypi-mirror.test/' }, basic('ses-a', secretOfA))).status).toBe(200);
  });

  it('attributes a refusal to the owner the secret was issued to', async () => {
    const { proxy, refusals, credentials } = await startProxy();
    const secret = credentials.issue('ses-owner');
    expect((await proxied({ port: proxy.port, path: 'http://not-allowed.invalid/' }, basic('ses-owner', secret))).status).toBe(403);
    expect((await sendConnect(proxy.port, 'not-allowed.invalid:443', [`Proxy-Authorization: ${basic('ses-owner', secret)}`])).status).toBe(403);
    expect(refusals.map((r) => [r.reason, r.client])).toEqual([
      ['host-not-allowed', 'ses-owner'],
      ['host-not-allowed', 'ses-owner'],
    ]);
  });

  it('refuses a revoked credential at once (CONNECT and plain HTTP), and disconnect ends that owner\'s open tunnels only', async () => {
    const { proxy, credentials, auth, connects } = await startProxy();
    const gone = auth('ses-gone');
    const kept = auth('ses-kept');
    const goneTunnel = await sendConnect(proxy.port, 'pypi-mirror.test:443', [`Proxy-Authorization: ${gone}`]);
    const keptTunnel = await sendConnect(proxy.port, 'pypi-mirror.test:443', [`Proxy-Authorization: ${kept}`]);
    expect([goneTunnel.status, keptTunnel.status]).toEqual([200, 200]);
    expect((await proxied({ port: proxy.port, path: 'http://pypi-mirror.test/' }, gone)).status).toBe(200);

    expect(credentials.revoke('ses-gone')).toBe(true);
    const goneClosed = readAll(goneTunnel.socket);
    proxy.disconnect('ses-gone');
    await goneClosed;
    const before = connects.length;
    expect((await sendConnect(proxy.port, 'pypi-mirror.test:443', [`Proxy-Authorization: ${gone}`])).status).toBe(407);
    expect((await proxied({ port: proxy.port, path: 'http://pypi-mirror.test/' }, gone)).status).toBe(407);
    expect(connects.length).toBe(before);
    // A new credential for the same owner is a new secret; the old one stays dead.
    const again = auth('ses-gone');
    expect(again).not.toBe(gone);
    expect((await proxied({ port: proxy.port, path: 'http://pypi-mirror.test/' }, gone)).status).toBe(407);
    expect((await proxied({ port: proxy.port, path: 'http://pypi-mirror.test/' }, again)).status).toBe(200);

    // The other owner's tunnel still carries bytes.
    keptTunnel.socket.write('still here');
    expect((await readBytes(keptTunnel.socket, 10, keptTunnel.rest)).toString()).toBe('still here');
  });

  it('checks every request on a kept-alive connection: one authenticated request does not open the door for the next', async () => {
    const { proxy, connects } = await startProxy();
    for (const next of [
      'GET http://pypi-mirror.test/second HTTP/1.1\r\nHost: pypi-mirror.test\r\n\r\n',
      'CONNECT pypi-mirror.test:443 HTTP/1.1\r\nHost: pypi-mirror.test:443\r\n\r\n',
    ]) {
      connects.length = 0;
      const socket = dial(proxy.port);
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      const closed = withTimeout(new Promise((r) => socket.once('close', r)), WAIT_MS, 'connection close');
      socket.write(`GET http://pypi-mirror.test/first HTTP/1.1\r\nHost: pypi-mirror.test\r\nProxy-Authorization: ${defaultAuth}\r\n\r\n`);
      await pollUntil(() => (received.includes('simple index at /first') ? true : undefined), WAIT_MS, 'first answer');
      expect(received).toMatch(/^HTTP\/1\.1 200 /);
      // Same connection, no credential this time.
      socket.write(next);
      await closed;
      expect(received.slice(received.indexOf('simple index at /first'))).toMatch(/HTTP\/1\.1 407 [^]*Proxy-Authenticate: Basic/);
      expect(received).not.toContain('/second');
      expect(connects).toEqual(['pypi-mirror.test:80']);
    }
  });

  it('answers an unauthenticated protocol upgrade with 407', async () => {
    const { proxy, connects } = await startProxy();
    const answer = await exchange(
      proxy.port,
      'GET http://pypi-mirror.test/ws HTTP/1.1\r\nHost: pypi-mirror.test\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 407 [^]*Proxy-Authenticate: Basic/);
    expect(connects).toEqual([]);
  });
});

describe('egress proxy: only clients on the egress network may connect', () => {
  it('closes a connection from outside the allowed subnet before reading it, valid credential or not, and logs its source', async () => {
    // The proxy listens on loopback but accepts 10.0.0.0/8 only: this test's own 127.0.0.1 is the outsider.
    const { proxy, refusals, connects, warnings } = await startProxy({ allowedSubnet: '10.0.0.0/8' });
    const viaConnect = await exchange(proxy.port, `CONNECT pypi-mirror.test:443 HTTP/1.1\r\nHost: pypi-mirror.test:443\r\nProxy-Authorization: ${defaultAuth}\r\n\r\n`);
    const viaGet = await exchange(proxy.port, `GET http://pypi-mirror.test/ HTTP/1.1\r\nHost: pypi-mirror.test\r\nProxy-Authorization: ${defaultAuth}\r\n\r\n`);
    expect([viaConnect, viaGet]).toEqual(['', '']);
    expect(connects).toEqual([]);
    // Nothing was parsed, so nothing was a request to refuse: the outsider shows in the log and the stats.
    expect(refusals).toEqual([]);
    expect(proxy.stats()).toMatchObject({ outsiders: 2, forwarded: 0, refused: 0 });
    const logged = warnings.filter((w) => w.message === 'refused egress connection from outside the egress network');
    expect(logged).toHaveLength(2);
    expect(logged[0]!.fields).toMatchObject({ source: '127.0.0.1', subnet: '10.0.0.0/8' });
  });

  it('serves the same request from inside the subnet (the control)', async () => {
    const { proxy } = await startProxy({ allowedSubnet: '127.0.0.1/32' });
    expect((await proxied({ port: proxy.port, path: 'http://pypi-mirror.test/' })).status).toBe(200);
    expect(proxy.stats().outsiders).toBe(0);
  });

  it('never listens on every interface and refuses a missing or too-wide subnet', async () => {
    for (const host of ['0.0.0.0', '::', '']) {
      await expect(startProxy({ host }), host).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    }
    for (const allowedSubnet of ['0.0.0.0/0', '10.0.0.0/7', '', '10.0.0.1', 'fd00::/64']) {
      await expect(startProxy({ allowedSubnet }), allowedSubnet).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    }
    expect(running).toBeUndefined();
  });

  it('listens on exactly the address it was given', async () => {
    const { proxy } = await startProxy();
    expect(proxy.address).toBe('127.0.0.1');
  });
});
