import { describe, expect, it } from 'vitest';
import {
  defaultAuth,
  exchange,
  proxied,
  runningProxy,
  startProxy,
  useEgressProxyHarness,
} from '../../test-support/egress-proxy-harness';

useEgressProxyHarness();

describe('egress proxy: only clients on the egress network may connect', () => {
  it('closes a connection from outside the allowed subnet before reading it, valid credential or not, and logs its source', async () => {
    // The proxy listens on loopback but accepts 10.0.0.0/8 only: this test's own 127.0.0.1 is the outsider.
    const { proxy, refusals, connects, warnings } = await startProxy({ allowedSubnet: '10.0.0.0/8' });
    const viaConnect = await exchange(
      proxy.port,
      `CONNECT pypi-mirror.test:443 HTTP/1.1\r\nHost: pypi-mirror.test:443\r\nProxy-Authorization: ${defaultAuth}\r\n\r\n`,
    );
    const viaGet = await exchange(
      proxy.port,
      `GET http://pypi-mirror.test/ HTTP/1.1\r\nHost: pypi-mirror.test\r\nProxy-Authorization: ${defaultAuth}\r\n\r\n`,
    );
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
    expect(runningProxy()).toBeUndefined();
  });

  it('listens on exactly the address it was given', async () => {
    const { proxy } = await startProxy();
    expect(proxy.address).toBe('127.0.0.1');
  });
});
