import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../../test-support/http-client';
import type { DockerClient, NetworkInfo, NetworkSpec } from '../docker/docker-client';
import { LABEL, instanceLabels } from '../docker/labels';
import type { InstanceIdentity } from '../docker/labels';
import { silentLogger } from '../log';
import { withTimeout } from '../util/with-timeout';
import type { EgressConnector } from './egress-connector';
import { egressNetworkName, startEgressGateway } from './egress-gateway';
import type { EgressGateway, EgressGatewayOptions, EgressRefusedEvent } from './egress-gateway';
import { lazyEgressGateway } from './egress-gateway-lazy';

// No Docker: a fake engine whose network "gateway" is 127.0.0.1, so every socket stays on loopback.
// 198.51.100.77 (TEST-NET-2) is only ever listened on, which fails locally without sending anything.

const identity: InstanceIdentity = { instanceId: '6938ac0d-63de-4bb1-9c1e-000000000000', host: 'h', pid: 1, processStart: '1' };

interface FakeEngine {
  docker: DockerClient;
  created: NetworkSpec[];
  removed: string[];
}

function fakeEngine(info: Partial<NetworkInfo> = {}): FakeEngine {
  const created: NetworkSpec[] = [];
  const removed: string[] = [];
  const docker = {
    endpoint: { kind: 'local', address: '/var/run/docker.sock' },
    createNetwork: (spec: NetworkSpec) => {
      created.push(spec);
      return Promise.resolve('net-1');
    },
    inspectNetwork: (id: string) =>
      Promise.resolve<NetworkInfo>({
        id,
        name: created[0]?.name ?? '',
        labels: created[0]?.labels ?? {},
        internal: true,
        subnets: [{ subnet: '127.0.0.0/8', gateway: '127.0.0.1' }],
        ...info,
      }),
    removeNetwork: (id: string) => {
      removed.push(id);
      return Promise.resolve();
    },
  } as Partial<DockerClient> as DockerClient;
  return { docker, created, removed };
}

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

function options(engine: FakeEngine, refusals: EgressRefusedEvent[] = []): EgressGatewayOptions {
  return {
    docker: engine.docker,
    identity,
    allowedUrls: ['http://pypi-mirror.test:3141/simple', 'https://registry.npmjs.org/'],
    extraHosts: [],
    onRefused: (event) => refusals.push(event),
    log: silentLogger,
    connect: toUpstream,
  };
}

describe('startEgressGateway', () => {
  it('creates an internal, instance-labelled network and serves the proxy on its gateway', async () => {
    const engine = fakeEngine();
    const refusals: EgressRefusedEvent[] = [];
    const gateway = await startEgressGateway(options(engine, refusals));
    try {
      expect(engine.created).toEqual([
        { name: 'sandpit-egress-6938ac0d63de', labels: { ...instanceLabels(identity), [LABEL.role]: 'egress' }, internal: true },
      ]);
      expect(egressNetworkName(identity)).toBe('sandpit-egress-6938ac0d63de');
      expect(gateway).toMatchObject({ network: 'sandpit-egress-6938ac0d63de', networkId: 'net-1', gatewayIp: '127.0.0.1', subnet: '127.0.0.0/8' });

      const url = `http://session:ses-1@127.0.0.1:${gateway.port}`;
      expect(gateway.proxyUrl('ses-1')).toBe(url);
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

      const ok = await rawRequest({ port: gateway.port, path: 'http://pypi-mirror.test:3141/simple/' });
      expect(ok.status).toBe(200);
      expect(ok.text).toBe('mirror /simple/');
      const auth = `Basic ${Buffer.from('session:ses-1').toString('base64')}`;
      const refused = await rawRequest({ port: gateway.port, path: 'http://not-allowed.invalid/', headers: { 'proxy-authorization': auth } });
      expect(refused.status).toBe(403);
      expect(refusals).toEqual([{ host: 'not-allowed.invalid', port: 80, time: expect.any(String) as unknown, reason: 'host-not-allowed', sessionId: 'ses-1' }]);
      await rawRequest({ port: gateway.port, path: 'http://not-allowed.invalid/' });
      expect(refusals[1]).not.toHaveProperty('sessionId');
    } finally {
      await gateway.close();
    }
    expect(engine.removed).toEqual(['net-1']);
  });

  it('replaces hosts and ports with setAllowed, and keeps the old list on a bad entry', async () => {
    const engine = fakeEngine();
    const gateway = await startEgressGateway(options(engine));
    try {
      const get = (path: string): Promise<number> => rawRequest({ port: gateway.port, path }).then((r) => r.status);
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

  it('removes the network and explains itself when the gateway address is not on this machine', async () => {
    const engine = fakeEngine({ subnets: [{ subnet: '198.51.100.0/24', gateway: '198.51.100.77' }] });
    await expect(startEgressGateway(options(engine))).rejects.toMatchObject({ message: expect.stringContaining('not on this machine') as unknown });
    expect(engine.removed).toEqual(['net-1']);
  });

  it('refuses a network that is not internal or has no IPv4 gateway, and removes it', async () => {
    const open = fakeEngine({ internal: false });
    await expect(startEgressGateway(options(open))).rejects.toThrow(/not internal/);
    expect(open.removed).toEqual(['net-1']);
    const noGateway = fakeEngine({ subnets: [{ subnet: 'fd00::/64', gateway: 'fd00::1' }] });
    await expect(startEgressGateway(options(noGateway))).rejects.toThrow(/no IPv4 gateway/);
    expect(noGateway.removed).toEqual(['net-1']);
  });

  it('rejects a bad allow-list before touching the engine', async () => {
    const engine = fakeEngine();
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
    const engine = fakeEngine();
    const starts: EgressGatewayOptions[] = [];
    const closed: string[] = [];
    const lazy = lazyEgressGateway(options(engine), (o) => {
      starts.push(o);
      return starts.length === 1 ? Promise.reject(new Error('engine down')) : Promise.resolve(fakeGateway(closed));
    });
    expect(lazy.current()).toBeUndefined();
    await expect(lazy.get()).rejects.toThrow('engine down');
    lazy.setAllowed(['http://mirror.test/simple'], ['extra.test']);
    expect(() => lazy.setAllowed(['http://mirror.test/simple'], ['*'])).toThrow();
    const [a, b] = await Promise.all([lazy.get(), lazy.get()]);
    expect(a).toBe(b);
    expect(lazy.current()).toBe(a);
    expect(starts).toHaveLength(2);
    expect(starts[1]).toMatchObject({ allowedUrls: ['http://mirror.test/simple'], extraHosts: ['extra.test'] });
    await lazy.close();
    expect(closed).toEqual(['n']);
    await expect(lazy.get()).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('closes without starting anything when it was never used', async () => {
    let started = 0;
    const lazy = lazyEgressGateway(options(fakeEngine()), () => {
      started += 1;
      return Promise.resolve(fakeGateway([]));
    });
    await lazy.close();
    expect(started).toBe(0);
  });
});
