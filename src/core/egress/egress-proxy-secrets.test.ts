import { createServer } from 'node:https';
import type { Server } from 'node:https';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { AddressInfo } from 'node:net';
import { connect as tlsConnect, createSecureContext } from 'node:tls';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTimeout } from '../util/with-timeout';
import { guardedConnector } from './egress-connector';
import type { EgressConnector } from './egress-connector';
import type { EgressPassage } from './egress-proxy';
import { createSecretAuthority } from './secret-ca';
import type { UsableSecret } from './secret-store';
import { parseSecretHost } from './secret-hosts';
import { sendConnect, startProxy, useEgressProxyHarness, WAIT_MS } from '../../test-support/egress-proxy-harness';

useEgressProxyHarness();

// Everything on 127.0.0.1: the "upstream" is a local HTTPS server with its own test CA, given to the proxy as
// extra upstream trust; names reach it only through the test connector.
const VALUE = 'sk-test-9f8e7d6c5b4a-never-in-the-sandbox';
const upstreamCa = createSecretAuthority('Test upstream CA');
const sandpitCa = createSecretAuthority();
let upstream: Server;
let upstreamPort: number;
/** Every request the upstream saw: host and headers. */
const seen: Array<{ host: string; headers: Record<string, unknown> }> = [];

const openai: UsableSecret = {
  name: 'openai',
  hosts: [parseSecretHost('api.secret.test')],
  sendAs: { kind: 'header', header: 'Authorization', template: 'Bearer {value}' },
  placeholder: 'sandpit-secret-openai',
  value: VALUE,
};

const connector: EgressConnector = (host, port) => {
  if (!['api.secret.test', 'other.test'].includes(host) || ![443, 8443].includes(port)) throw new Error(`test connector: ${host}:${port} is not mapped`);
  return connect(upstreamPort, '127.0.0.1');
};

beforeAll(async () => {
  upstream = createServer({ SNICallback: (name, cb) => cb(null, createSecureContext(upstreamCa.leafFor(name))) }, (req, res) => {
    seen.push({ host: req.headers.host ?? '', headers: { ...req.headers } });
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const answer = JSON.stringify({ url: req.url, authorization: req.headers.authorization ?? null, body });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
      res.end(answer);
    });
  });
  await withTimeout(new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve)), WAIT_MS, 'listen');
  upstreamPort = (upstream.address() as AddressInfo).port;
});
afterAll(async () => {
  upstream.closeAllConnections();
  await withTimeout(new Promise((r) => upstream.close(r)), WAIT_MS, 'close upstream');
});

async function startWithSecrets(used: Array<EgressPassage & { secrets: string[] }> = []): Promise<Awaited<ReturnType<typeof startProxy>>> {
  return startProxy({
    allowedHosts: ['api.secret.test', 'other.test'],
    connect: connector,
    secrets: {
      authority: sandpitCa,
      secretsFor: (_owner, host, port) => Promise.resolve([openai].filter((s) => s.hosts.some((h) => h.host === host && h.port === port))),
      onUsed: (event) => used.push(event),
      upstreamCa: [upstreamCa.certificate],
    },
  });
}

/** CONNECT, then TLS trusting `ca` only. */
async function tlsThrough(port: number, host: string, ca: string, targetPort = 443): Promise<TLSSocket> {
  const { socket, status } = await sendConnect(port, `${host}:${targetPort}`);
  expect(status).toBe(200);
  socket.resume();
  const tls = tlsConnect({ socket, servername: host, ca });
  await withTimeout(new Promise<void>((resolve, reject) => tls.once('secureConnect', resolve).once('error', reject)), WAIT_MS, 'TLS through the proxy');
  return tls;
}

/** Sends one raw request and reads one response (Content-Length bodies). */
function exchange(tls: TLSSocket, raw: string): Promise<{ status: number; body: string }> {
  let got = Buffer.alloc(0);
  return withTimeout(
    new Promise((resolve, reject) => {
      const onData = (chunk: Buffer): void => {
        got = Buffer.concat([got, chunk]);
        const end = got.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = got.subarray(0, end).toString('latin1');
        const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? -1);
        if (length >= 0 && got.length < end + 4 + length) return;
        tls.off('data', onData);
        resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), body: got.subarray(end + 4, length >= 0 ? end + 4 + length : undefined).toString('utf8') });
      };
      tls.on('data', onData);
      tls.once('close', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(got.toString('latin1'))?.[1] ?? 0), body: got.toString('utf8') }));
      tls.once('error', reject);
      tls.write(raw);
    }),
    WAIT_MS,
    'exchange',
  );
}

describe('egress proxy: secrets put in for their own hosts', () => {
  it('replaces the placeholder in a request to the secret host, on several requests of one connection, and says which secret it used', async () => {
    const used: Array<EgressPassage & { secrets: string[] }> = [];
    const { proxy } = await startWithSecrets(used);
    const tls = await tlsThrough(proxy.port, 'api.secret.test', sandpitCa.certificate);
    const first = await exchange(tls, 'GET /v1/models HTTP/1.1\r\nHost: api.secret.test\r\nAuthorization: Bearer sandpit-secret-openai\r\n\r\n');
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body)).toMatchObject({ url: '/v1/models', authorization: `Bearer ${VALUE}` });
    // The same connection: a second request, with no Authorization at all: the secret's header is added.
    const second = await exchange(tls, 'POST /v1/chat HTTP/1.1\r\nHost: api.secret.test\r\nContent-Length: 5\r\n\r\nhello');
    expect(JSON.parse(second.body)).toMatchObject({ url: '/v1/chat', authorization: `Bearer ${VALUE}`, body: 'hello' });
    expect(used.map((u) => [u.host, u.secrets])).toEqual([
      ['api.secret.test', ['openai']],
      ['api.secret.test', ['openai']],
    ]);
    tls.destroy();
  });

  it('keeps the plain tunnel for another allowed host: the sandbox sees the host\'s own certificate, and the placeholder stays a placeholder', async () => {
    const { proxy } = await startWithSecrets();
    // Trusting only Sandpit's CA fails: the proxy did not terminate TLS for other.test.
    await expect(tlsThrough(proxy.port, 'other.test', sandpitCa.certificate)).rejects.toThrow(/certificate/i);
    const tls = await tlsThrough(proxy.port, 'other.test', upstreamCa.certificate);
    const answer = await exchange(tls, 'GET /leak HTTP/1.1\r\nHost: other.test\r\nAuthorization: Bearer sandpit-secret-openai\r\n\r\n');
    expect(JSON.parse(answer.body)).toMatchObject({ url: '/leak', authorization: 'Bearer sandpit-secret-openai' });
    expect(seen.filter((s) => s.host === 'other.test').every((s) => !JSON.stringify(s).includes(VALUE))).toBe(true);
    tls.destroy();
  });

  it('refuses request smuggling (Content-Length with Transfer-Encoding) and a header line with a bare CR, before anything goes upstream', async () => {
    const { proxy } = await startWithSecrets();
    const before = seen.length;
    const tls = await tlsThrough(proxy.port, 'api.secret.test', sandpitCa.certificate);
    const smuggled = await exchange(tls, 'POST / HTTP/1.1\r\nHost: api.secret.test\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /second HTTP/1.1\r\nHost: api.secret.test\r\n\r\n');
    expect(smuggled.status).toBe(400);
    const tls2 = await tlsThrough(proxy.port, 'api.secret.test', sandpitCa.certificate);
    const injected = await exchange(tls2, 'GET / HTTP/1.1\r\nHost: api.secret.test\r\nX-A: a\rAuthorization: Bearer sandpit-secret-openai\r\n\r\n');
    expect(injected.status).toBe(400);
    expect(seen.length).toBe(before);
  });

  it('a sandbox that does not trust the Sandpit CA gets no connection (the leaf is the CA\'s, nobody else\'s)', async () => {
    const { proxy } = await startWithSecrets();
    await expect(tlsThrough(proxy.port, 'api.secret.test', upstreamCa.certificate)).rejects.toThrow(/certificate/i);
  });
  it('verifies the upstream: a secret host whose certificate no trusted authority signed gets no request and no value (502)', async () => {
    // The same upstream, but the proxy trusts only the system's authorities, as outside the tests.
    const { proxy } = await startProxy({
      allowedHosts: ['api.secret.test'],
      connect: connector,
      secrets: {
        authority: sandpitCa,
        secretsFor: (_owner, host, port) => Promise.resolve([openai].filter((s) => s.hosts.some((h) => h.host === host && h.port === port))),
        onUsed: () => undefined,
      },
    });
    const before = seen.length;
    const tls = await tlsThrough(proxy.port, 'api.secret.test', sandpitCa.certificate);
    const answer = await exchange(tls, 'GET /v1/models HTTP/1.1\r\nHost: api.secret.test\r\nAuthorization: Bearer sandpit-secret-openai\r\n\r\n');
    expect(answer.status).toBe(502);
    expect(answer.body).toContain('Sandpit egress proxy: could not reach api.secret.test:443 safely (');
    expect(seen.length).toBe(before);
    tls.destroy();
  });

  it('opens a port the policy does not (8443) only for a secret that names it, and only intercepted; any other host on that port is refused', async () => {
    const used: Array<EgressPassage & { secrets: string[] }> = [];
    const internal: UsableSecret = { ...openai, name: 'internal', hosts: [parseSecretHost('api.secret.test:8443')], placeholder: 'sandpit-secret-internal' };
    const { proxy } = await startProxy({
      allowedHosts: ['api.secret.test', 'other.test'],
      connect: connector,
      secrets: {
        authority: sandpitCa,
        secretsFor: (_owner, host, port) => Promise.resolve([internal].filter((s) => s.hosts.some((h) => h.host === host && h.port === port))),
        onUsed: (event) => used.push(event),
        upstreamCa: [upstreamCa.certificate],
      },
    });
    const tls = await tlsThrough(proxy.port, 'api.secret.test', sandpitCa.certificate, 8443);
    const answer = await exchange(tls, 'GET /on-8443 HTTP/1.1\r\nHost: api.secret.test:8443\r\nAuthorization: Bearer sandpit-secret-internal\r\n\r\n');
    expect(JSON.parse(answer.body)).toMatchObject({ url: '/on-8443', authorization: `Bearer ${VALUE}` });
    expect(used.map((u) => [u.host, u.port, u.secrets])).toEqual([['api.secret.test', 8443, ['internal']]]);
    tls.destroy();
    // The same port for a host with no secret naming it: the usual refusal, nothing tunnelled.
    const refused = await sendConnect(proxy.port, 'other.test:8443');
    expect(refused.status).toBe(403);
    refused.socket.destroy();
  });

  it('refuses a secret host whose name resolves to this computer, one at an address of its own interfaces, and one at the metadata address: the value goes nowhere', async () => {
    const before = seen.length;
    const own = Object.values(networkInterfaces()).flatMap((list) => list ?? []).find((entry) => entry.family === 'IPv4' && !entry.internal)?.address;
    expect(own, 'an IPv4 interface that is not loopback').toBeDefined();
    const local: UsableSecret = { ...openai, name: 'local', hosts: [{ host: 'localhost', port: 443 }, { host: '169.254.169.254', port: 443 }, { host: own!, port: 443 }], placeholder: 'sandpit-secret-local' };
    // The production connector (no test mapping): names are looked up, and answers that are this computer or link-local refused.
    const { proxy } = await startProxy({
      allowedHosts: ['localhost', '169.254.169.254', own!],
      connect: guardedConnector,
      secrets: {
        authority: sandpitCa,
        secretsFor: (_owner, host, port) => Promise.resolve([local].filter((s) => s.hosts.some((h) => h.host === host && h.port === port))),
        upstreamCa: [upstreamCa.certificate],
      },
    });
    const tls = await tlsThrough(proxy.port, 'localhost', sandpitCa.certificate);
    const answer = await exchange(tls, 'GET / HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer sandpit-secret-local\r\n\r\n');
    expect(answer.status).toBe(403);
    expect(answer.body).toContain('Sandpit egress proxy: localhost resolves to an address sandboxes never reach\n');
    tls.destroy();
    // The metadata address and this computer's own interface address, allowed in the list: intercepted (a secret
    // names them), and refused before anything goes out.
    for (const address of ['169.254.169.254', own!]) {
      const tunnel = await sendConnect(proxy.port, `${address}:443`);
      expect(tunnel.status).toBe(200);
      tunnel.socket.resume();
      const inner = tlsConnect({ socket: tunnel.socket, ca: sandpitCa.certificate, checkServerIdentity: () => undefined });
      await withTimeout(new Promise<void>((resolve, reject) => inner.once('secureConnect', resolve).once('error', reject)), WAIT_MS, 'TLS through the proxy');
      const refused = await exchange(inner, `GET / HTTP/1.1\r\nHost: ${address}\r\nAuthorization: Bearer sandpit-secret-local\r\n\r\n`);
      expect(refused.status).toBe(403);
      expect(refused.body).toContain(`Sandpit egress proxy: ${address} resolves to an address sandboxes never reach\n`);
      inner.destroy();
    }
    expect(seen.length).toBe(before);
  });
});
