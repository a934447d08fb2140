import { describe, expect, it } from 'vitest';
import { guardedConnector } from './egress-connector';
import {
  defaultAuth,
  dial,
  httpPort,
  lastUpstreamHeaders,
  proxied,
  readAll,
  startProxy,
  useEgressProxyHarness,
} from '../../test-support/egress-proxy-harness';

useEgressProxyHarness();

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
