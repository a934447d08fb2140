import { describe, expect, it } from 'vitest';
import { pollUntil, withTimeout } from '../util/with-timeout';
import {
  basic,
  defaultAuth,
  dial,
  exchange,
  proxied,
  readAll,
  readBytes,
  sendConnect,
  startProxy,
  useEgressProxyHarness,
  WAIT_MS,
} from '../../test-support/egress-proxy-harness';

useEgressProxyHarness();

describe('egress proxy: only credentials it issued get through', () => {
  it('answers a CONNECT without Proxy-Authorization with 407 and a Basic challenge, even to an allowed host', async () => {
    const { proxy, refusals, connects } = await startProxy();
    const { socket, status, head } = await sendConnect(proxy.port, 'pypi-mirror.test:443', []);
    socket.resume();
    expect(status).toBe(407);
    expect(head).toMatch(/\r\nProxy-Authenticate: Basic realm="Sandpit egress proxy"/);
    expect(head).toMatch(/\r\nX-Sandpit-Refused: proxy-auth-required/);
    expect(connects).toEqual([]);
    expect(refusals).toEqual([
      { host: 'pypi-mirror.test', port: 443, time: expect.any(String) as unknown, reason: 'proxy-auth-required' },
    ]);
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
      expect(
        (await sendConnect(proxy.port, 'pypi-mirror.test:443', [`Proxy-Authorization: ${header}`])).status,
        header,
      ).toBe(407);
      expect((await proxied({ port: proxy.port, path: 'http://pypi-mirror.test/' }, header)).status, header).toBe(407);
    }
    expect(connects).toEqual([]);
    expect(refusals).toHaveLength(forged.length * 2);
    expect(refusals.every((r) => r.reason === 'proxy-auth-required' && r.client === undefined)).toBe(true);
    // The real credential still works: the refusals above were about the credentials, not the targets.
    expect(
      (await proxied({ port: proxy.port, path: 'http://pypi-mirror.test/' }, basic('ses-a', secretOfA))).status,
    ).toBe(200);
  });

  it('attributes a refusal to the owner the secret was issued to', async () => {
    const { proxy, refusals, credentials } = await startProxy();
    const secret = credentials.issue('ses-owner');
    expect(
      (await proxied({ port: proxy.port, path: 'http://not-allowed.invalid/' }, basic('ses-owner', secret))).status,
    ).toBe(403);
    expect(
      (await sendConnect(proxy.port, 'not-allowed.invalid:443', [`Proxy-Authorization: ${basic('ses-owner', secret)}`]))
        .status,
    ).toBe(403);
    expect(refusals.map((r) => [r.reason, r.client])).toEqual([
      ['host-not-allowed', 'ses-owner'],
      ['host-not-allowed', 'ses-owner'],
    ]);
  });

  it("refuses a revoked credential at once (CONNECT and plain HTTP), and disconnect ends that owner's open tunnels only", async () => {
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
      socket.write(
        `GET http://pypi-mirror.test/first HTTP/1.1\r\nHost: pypi-mirror.test\r\nProxy-Authorization: ${defaultAuth}\r\n\r\n`,
      );
      await pollUntil(() => (received.includes('simple index at /first') ? true : undefined), WAIT_MS, 'first answer');
      expect(received).toMatch(/^HTTP\/1\.1 200 /);
      // Same connection, no credential this time.
      socket.write(next);
      await closed;
      expect(received.slice(received.indexOf('simple index at /first'))).toMatch(
        /HTTP\/1\.1 407 [^]*Proxy-Authenticate: Basic/,
      );
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
