import { describe, expect, it } from 'vitest';
import { pollUntil, withTimeout } from '../util/with-timeout';
import { guardedConnector } from './egress-connector';
import {
  echoSockets,
  proxied,
  readBytes,
  sendConnect,
  startProxy,
  useEgressProxyHarness,
  WAIT_MS,
} from '../../test-support/egress-proxy-harness';

useEgressProxyHarness();

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
    const mine = await sendConnect(proxy.port, 'files.pythonhosted.org:443', [
      `Proxy-Authorization: ${auth('ses-extra')}`,
    ]);
    expect(mine.status).toBe(200);
    mine.socket.destroy();
    const other = await sendConnect(proxy.port, 'files.pythonhosted.org:443', [
      `Proxy-Authorization: ${auth('ses-other')}`,
    ]);
    expect(other.status).toBe(403);
    other.socket.resume();
    expect(connects).toEqual(['files.pythonhosted.org:443']);
    expect(refusals).toEqual([
      expect.objectContaining({ host: 'files.pythonhosted.org', reason: 'host-not-allowed', client: 'ses-other' }),
    ]);
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
