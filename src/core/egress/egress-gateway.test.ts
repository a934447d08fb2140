import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../../test-support/http-client';
import { MemoryNetworks } from '../../test-support/memory-networks';
import type { InstanceIdentity } from '../sandbox/instance-identity';
import { silentLogger } from '../log';
import { pollUntil, withTimeout } from '../util/with-timeout';
import type { EgressConnector } from './egress-connector';
import { egressNetworkName, startEgressGateway } from './egress-gateway';
import type { EgressGateway, EgressGatewayOptions, EgressRefusedEvent } from './egress-gateway';
import { lazyEgressGateway } from './egress-gateway-lazy';

// No engine: the in-memory network port, whose networks' "gateway" is 127.0.0.1, so every socket stays on loopback.
// 198.51.100.77 (TEST-NET-2) is only ever listened on, which fails locally without sending anything.

const identity: InstanceIdentity = { instanceId: '6938ac0d-63de-4bb1-9c1e-000000000000', host: 'h', pid: 1, processStart: '1' };

let upstream: Server;
let upstreamPort: number;
/** Maps every allowed name to the local upstream server. */
const toUpstream: EgressConnector = () => connect({ host: '127.0.0.1', port: upstreamPort });

beforeAll(async () => {
  upstream = createServer((req, res) => res.end(`mirror ${req.url}`));
  await withTimeout(new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve)), 5_000, 'listen');
  upstreamPort = (upstream.address() as AddressInfo).port;
});
afterAll(async () => {
  await withTimeout(new Promise<void>((resolve) => upstream.close(() => resolve())), 5_000, 'close upstream');
});

/** The Proxy-Authorization a client sends for a proxy URL `http://<user>:<password>@host:port`. */
function authOf(proxyUrl: string): string {
  const url = new URL(proxyUrl);
  return `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
}

/** Connects from `localAddress` (a loopback address), sends `bytes`, and returns all that came back before the close. */
function sendFrom(localAddress: string, port: number, bytes: string): Promise<string> {
  const chunks: Buffer[] = [];
  return withTimeout(
    new Promise<string>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port, localAddress });
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', () => socket.destroy());
      socket.once('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
      socket.write(bytes);
    }),
    5_000,
    `a request from ${localAddress}`,
  );
}

function options(networks: MemoryNetworks, refusals: EgressRefusedEvent[] = []): EgressGatewayOptions {
  return {
    networks,
    identity,
    allowedUrls: ['http://pypi-mirror.test:3141/simple', 'https://registry.npmjs.org/'],
    extraHosts: [],
    onRefused: (event) => refusals.push(event),
    log: silentLogger,
    connect: toUpstream,
  };
}

describe('startEgressGateway', () => {
  it('creates an internal network for the egress role and serves the proxy on its gateway', async () => {
    const engine = new MemoryNetworks();
    const refusals: EgressRefusedEvent[] = [];
    const gateway = await startEgressGateway(options(engine, refusals));
    try {
      expect(engine.created).toEqual([{ name: 'sandpit-egress-6938ac0d63de', role: 'egress' }]);
      expect(egressNetworkName(identity)).toBe('sandpit-egress-6938ac0d63de');
      expect(gateway).toMatchObject({ network: 'sandpit-egress-6938ac0d63de', networkId: 'net-1', gatewayIp: '127.0.0.1', subnet: '127.0.0.0/8' });

      const url = gateway.proxyUrl('ses-1');
      expect(url).toMatch(new RegExp(`^http://ses-1:[A-Za-z0-9_-]{43}@127\\.0\\.0\\.1:${gateway.port}$`));
      expect(gateway.proxyUrl('ses-1')).toBe(url);
      expect(gateway.proxyUrl('ses-2')).not.toBe(url.replace('ses-1', 'ses-2'));
      expect(gateway.env('ses-1')).toEqual({
        HTTP_PROXY: url,
        HTTPS_PROXY: url,
        http_proxy: url,
        https_proxy: url,
        NO_PROXY: '',
        no_proxy: '',
        PIP_PROXY: url,
        npm_config_proxy: url,
        npm_config_https_proxy: url,
      });
      expect(gateway.installerProxy('ses-1')).toEqual({ network: gateway.network, env: gateway.env('ses-1'), pipProxyUrl: url });

      const auth = authOf(url);
      const ok = await rawRequest({ port: gateway.port, path: 'http://pypi-mirror.test:3141/simple/', headers: { 'proxy-authorization': auth } });
      expect(ok.status).toBe(200);
      expect(ok.text).toBe('mirror /simple/');
      const refused = await rawRequest({ port: gateway.port, path: 'http://not-allowed.invalid/', headers: { 'proxy-authorization': auth } });
      expect(refused.status).toBe(403);
      expect(refusals).toEqual([{ host: 'not-allowed.invalid', port: 80, time: expect.any(String) as unknown, reason: 'host-not-allowed', sessionId: 'ses-1' }]);
      // No credential: a 407 that names no session.
      expect((await rawRequest({ port: gateway.port, path: 'http://pypi-mirror.test:3141/simple/' })).status).toBe(407);
      expect(refusals[1]).toMatchObject({ reason: 'proxy-auth-required' });
      expect(refusals[1]).not.toHaveProperty('sessionId');
    } finally {
      await gateway.close();
    }
    expect(engine.removed).toEqual(['net-1']);
  });

  it('replaces hosts and ports with setAllowed, and keeps the old list on a bad entry', async () => {
    const engine = new MemoryNetworks();
    const gateway = await startEgressGateway(options(engine));
    try {
      const auth = authOf(gateway.proxyUrl('ses-1'));
      const get = (path: string): Promise<number> => rawRequest({ port: gateway.port, path, headers: { 'proxy-authorization': auth } }).then((r) => r.status);
      expect(await get('http://other-mirror.test:8081/')).toBe(403);
      gateway.setAllowed(['http://other-mirror.test:8081/simple'], ['*.example.org']);
      expect(await get('http://other-mirror.test:8081/')).toBe(200);
      expect(await get('http://files.example.org/')).toBe(200);
      expect(await get('http://pypi-mirror.test:3141/')).toBe(403);
      expect(() => gateway.setAllowed(['not a url'], [])).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
      expect(await get('http://other-mirror.test:8081/')).toBe(200);
    } finally {
      await gateway.close();
      await gateway.close();
    }
    expect(engine.removed).toEqual(['net-1']);
  });

  it('revokes a session\'s credential (sandbox and installer alike), and never revives it', async () => {
    const engine = new MemoryNetworks();
    const gateway = await startEgressGateway(options(engine));
    try {
      const get = (auth: string): Promise<number> =>
        rawRequest({ port: gateway.port, path: 'http://pypi-mirror.test:3141/', headers: { 'proxy-authorization': auth } }).then((r) => r.status);
      const sandbox = authOf(gateway.env('ses-1').HTTPS_PROXY!);
      const installer = authOf(gateway.installerProxy('ses-1').pipProxyUrl);
      const other = authOf(gateway.proxyUrl('ses-2'));
      expect(installer).toBe(sandbox);
      expect([await get(sandbox), await get(other)]).toEqual([200, 200]);
      expect(gateway.credentialCount()).toBe(2);
      // An open tunnel of the session is cut too.
      const tunnel = connect({ host: '127.0.0.1', port: gateway.port });
      tunnel.on('error', () => tunnel.destroy());
      let received = '';
      tunnel.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      const tunnelClosed = withTimeout(new Promise((r) => tunnel.once('close', r)), 5_000, 'tunnel closed by revoke');
      tunnel.write(`CONNECT pypi-mirror.test:3141 HTTP/1.1\r\nHost: pypi-mirror.test:3141\r\nProxy-Authorization: ${sandbox}\r\n\r\n`);
      await pollUntil(() => (received.startsWith('HTTP/1.1 200 ') ? true : undefined), 5_000, 'tunnel open');
      gateway.revoke('ses-1');
      await tunnelClosed;
      gateway.revoke('ses-1');
      gateway.revoke('ses-never');
      expect([await get(sandbox), await get(other)]).toEqual([407, 200]);
      // Asking again for a stopped session's URL makes a new secret; the old one stays dead.
      const fresh = authOf(gateway.proxyUrl('ses-1'));
      expect(fresh).not.toBe(sandbox);
      expect([await get(sandbox), await get(fresh)]).toEqual([407, 200]);
    } finally {
      await gateway.close();
    }
  });

  it('gives each build its own credential, reports its refusals without a session, and revokes it on release', async () => {
    const engine = new MemoryNetworks();
    const refusals: EgressRefusedEvent[] = [];
    const gateway = await startEgressGateway(options(engine, refusals));
    try {
      const first = gateway.buildProxy();
      const second = gateway.buildProxy();
      const auth = authOf(first.env.HTTP_PROXY!);
      expect(auth).not.toBe(authOf(second.env.HTTP_PROXY!));
      expect(first.env.HTTP_PROXY).toMatch(/^http:\/\/build-[0-9a-f]{16}:/);
      const get = (path: string): Promise<number> => rawRequest({ port: gateway.port, path, headers: { 'proxy-authorization': auth } }).then((r) => r.status);
      expect(await get('http://pypi-mirror.test:3141/')).toBe(200);
      expect(await get('http://not-allowed.invalid/')).toBe(403);
      expect(refusals).toHaveLength(1);
      expect(refusals[0]).not.toHaveProperty('sessionId');
      // A build reaches the Debian mirrors the base images name (apt, and R's r-cran-* packages through apt) —
      // reached here only through this test's connector, which answers from a server on loopback.
      expect(await get('http://deb.debian.org/debian/dists/bookworm/InRelease')).toBe(200);
      expect(await get('http://security.debian.org/debian-security/dists/bookworm-security/InRelease')).toBe(200);
      // A session never does: its requests there are refused as before.
      const session = authOf(gateway.proxyUrl('ses-1'));
      expect((await rawRequest({ port: gateway.port, path: 'http://deb.debian.org/debian/dists/bookworm/InRelease', headers: { 'proxy-authorization': session } })).status).toBe(403);
      first.release();
      expect(await get('http://pypi-mirror.test:3141/')).toBe(407);
      // The second build's and the session's.
      expect(gateway.credentialCount()).toBe(2);
    } finally {
      await gateway.close();
    }
  });

  it('accepts connections from the network\'s subnet only', async () => {
    // The network is 127.0.0.0/30 here: 127.0.0.1 is inside, 127.0.0.5 (also loopback on Linux) is a host outside it.
    const engine = new MemoryNetworks({ subnets: [{ subnet: '127.0.0.0/30', gateway: '127.0.0.1' }] });
    const gateway = await startEgressGateway(options(engine));
    try {
      expect(gateway.subnet).toBe('127.0.0.0/30');
      const auth = authOf(gateway.proxyUrl('ses-1'));
      expect((await rawRequest({ port: gateway.port, path: 'http://pypi-mirror.test:3141/', headers: { 'proxy-authorization': auth } })).status).toBe(200);
      expect(gateway.stats().outsiders).toBe(0);
      // The same valid request from outside the subnet: closed before a byte is read.
      const answer = await sendFrom('127.0.0.5', gateway.port, `GET http://pypi-mirror.test:3141/ HTTP/1.1\r\nHost: pypi-mirror.test:3141\r\nProxy-Authorization: ${auth}\r\n\r\n`);
      expect(answer).toBe('');
      expect(gateway.stats()).toMatchObject({ outsiders: 1, forwarded: 1 });
    } finally {
      await gateway.close();
    }
    const outside = new MemoryNetworks({ subnets: [{ subnet: '10.99.0.0/16', gateway: '127.0.0.1' }] });
    await expect(startEgressGateway(options(outside))).rejects.toThrow(/not inside its subnet/);
    expect(outside.removed).toEqual(['net-1']);
  });

  it('removes the network and explains itself when the gateway address is not on this machine', async () => {
    const engine = new MemoryNetworks({ subnets: [{ subnet: '198.51.100.0/24', gateway: '198.51.100.77' }] });
    await expect(startEgressGateway(options(engine))).rejects.toMatchObject({ message: expect.stringContaining('not on this machine') as unknown });
    expect(engine.removed).toEqual(['net-1']);
  });

  it('refuses a remote engine plainly before making a network, even when its gateway address exists here too', async () => {
    // A remote engine's default subnet can match one on this machine: listening here would succeed and its
    // containers would never reach the proxy. The refusal comes first, and nothing is created on the engine.
    const engine = new MemoryNetworks({ subnets: [{ subnet: '127.0.0.0/30', gateway: '127.0.0.1' }] });
    engine.endpoint = { kind: 'remote', address: 'build-box:2376 (TLS)' };
    await expect(startEgressGateway(options(engine))).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining("go through Sandpit's egress proxy on this computer, and the containers of a remote Docker engine (build-box:2376 (TLS)) cannot reach it") as unknown,
    });
    expect(engine.created).toEqual([]);
  });

  it('refuses a network that is not internal or has no IPv4 gateway, and removes it', async () => {
    const open = new MemoryNetworks({ internal: false });
    await expect(startEgressGateway(options(open))).rejects.toThrow(/not internal/);
    expect(open.removed).toEqual(['net-1']);
    const noGateway = new MemoryNetworks({ subnets: [{ subnet: 'fd00::/64', gateway: 'fd00::1' }] });
    await expect(startEgressGateway(options(noGateway))).rejects.toThrow(/no IPv4 gateway/);
    expect(noGateway.removed).toEqual(['net-1']);
  });

  it('rejects a bad allow-list before touching the engine', async () => {
    const engine = new MemoryNetworks();
    await expect(startEgressGateway({ ...options(engine), extraHosts: ['*'] })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(engine.created).toEqual([]);
  });
});

describe('lazyEgressGateway', () => {
  function fakeGateway(closed: string[]): EgressGateway {
    return {
      network: 'n',
      close: () => {
        closed.push('n');
        return Promise.resolve();
      },
      setAllowed: () => undefined,
    } as Partial<EgressGateway> as EgressGateway;
  }

  it('starts once for concurrent callers, retries after a failed start, and passes the latest allow-list', async () => {
    const engine = new MemoryNetworks();
    const starts: EgressGatewayOptions[] = [];
    const closed: string[] = [];
    const lazy = lazyEgressGateway(options(engine), (o) => {
      starts.push(o);
      return starts.length === 1 ? Promise.reject(new Error('engine down')) : Promise.resolve(fakeGateway(closed));
    });
    expect(lazy.current()).toBeUndefined();
    expect(lazy.failure()).toBeUndefined();
    await expect(lazy.get()).rejects.toThrow('engine down');
    // Why it is not running is kept for the refusals of installs and "packages" sessions.
    expect(lazy.failure()).toBe('engine down');
    lazy.setAllowed(['http://mirror.test/simple'], ['extra.test']);
    expect(() => lazy.setAllowed(['http://mirror.test/simple'], ['*'])).toThrow();
    const [a, b] = await Promise.all([lazy.get(), lazy.get()]);
    expect(a).toBe(b);
    expect(lazy.current()).toBe(a);
    expect(lazy.failure()).toBeUndefined();
    expect(starts).toHaveLength(2);
    expect(starts[1]).toMatchObject({ allowedUrls: ['http://mirror.test/simple'], extraHosts: ['extra.test'] });
    await lazy.close();
    expect(closed).toEqual(['n']);
    await expect(lazy.get()).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('closes without starting anything when it was never used', async () => {
    let started = 0;
    const lazy = lazyEgressGateway(options(new MemoryNetworks()), () => {
      started += 1;
      return Promise.resolve(fakeGateway([]));
    });
    await lazy.close();
    expect(started).toBe(0);
  });
});
