/**
 * Secrets (issue 18): what the intercepting proxy costs against the plain CONNECT tunnel, all on 127.0.0.1
 * (no Docker): a local HTTPS upstream with its own CA, the egress proxy with one secret for api.secret.test.
 * Per request on a TLS connection already up (keep-alive), and per new connection (CONNECT + TLS + first answer).
 * Goals: ≤ 1 ms added p50 per request; ≤ 20 ms added p50 per new handshake.
 */
import { createServer } from 'node:https';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { connect as tlsConnect, createSecureContext } from 'node:tls';
import type { TLSSocket } from 'node:tls';
import { egressCredentials } from '../src/core/egress/egress-credentials';
import { startEgressProxy } from '../src/core/egress/egress-proxy';
import { createSecretAuthority } from '../src/core/egress/secret-ca';
import { parseSecretHost } from '../src/core/egress/secret-hosts';
import { silentLogger } from '../src/core/log';
import { now, progress } from './harness';
import { roundDistribution, summarize } from './stats';
import type { Distribution, Goal } from './stats';

const REQUESTS = 300;
const HANDSHAKES = 40;

export interface SecretsSummary {
  perRequest: { tunnel: Distribution; intercepted: Distribution; addedP50Ms: number };
  newConnection: { tunnel: Distribution; intercepted: Distribution; addedP50Ms: number };
  goals: Goal[];
}

async function through(proxyPort: number, auth: string, host: string, ca: string): Promise<TLSSocket> {
  const raw = connect(proxyPort, '127.0.0.1');
  raw.write(`CONNECT ${host}:443 HTTP/1.1\r\nHost: ${host}:443\r\nProxy-Authorization: ${auth}\r\n\r\n`);
  await new Promise<void>((resolve, reject) => {
    let got = '';
    const onData = (chunk: Buffer): void => {
      got += chunk.toString('latin1');
      if (!got.includes('\r\n\r\n')) return;
      raw.off('data', onData);
      if (got.startsWith('HTTP/1.1 200')) resolve();
      else reject(new Error(got.split('\r\n')[0]));
    };
    raw.on('data', onData);
    raw.once('error', reject);
  });
  const tls = tlsConnect({ socket: raw, servername: host, ca });
  await new Promise<void>((resolve, reject) => tls.once('secureConnect', resolve).once('error', reject));
  return tls;
}

function get(tls: TLSSocket, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let got = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      got = Buffer.concat([got, chunk]);
      const end = got.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/content-length: *(\d+)/i.exec(got.subarray(0, end).toString('latin1'))?.[1] ?? 0);
      if (got.length < end + 4 + length) return;
      tls.off('data', onData);
      tls.off('error', onError);
      resolve();
    };
    const onError = (error: Error): void => reject(error);
    tls.on('data', onData);
    tls.once('error', onError);
    tls.write(`GET / HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer sandpit-secret-bench\r\n\r\n`);
  });
}

export async function run(): Promise<SecretsSummary> {
  const upstreamCa = createSecretAuthority('Bench upstream CA');
  const sandpitCa = createSecretAuthority();
  const upstream = createServer({ SNICallback: (name, cb) => cb(null, createSecureContext(upstreamCa.leafFor(name))) }, (_req, res) => {
    res.writeHead(200, { 'content-length': 2 });
    res.end('ok');
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const upstreamPort = (upstream.address() as AddressInfo).port;
  const credentials = egressCredentials();
  const secret = { name: 'bench', hosts: [parseSecretHost('api.secret.test')], sendAs: { kind: 'header' as const, header: 'Authorization', template: 'Bearer {value}' }, placeholder: 'sandpit-secret-bench', value: 'sk-bench-value' };
  const proxy = await startEgressProxy({
    host: '127.0.0.1',
    port: 0,
    allowedSubnet: '127.0.0.0/8',
    credentials,
    allowedHosts: ['api.secret.test', 'other.test'],
    onRefused: () => undefined,
    connect: () => connect(upstreamPort, '127.0.0.1'),
    log: silentLogger,
    secrets: { authority: sandpitCa, secretsFor: (_o, host) => Promise.resolve(host === 'api.secret.test' ? [secret] : []), upstreamCa: [upstreamCa.certificate] },
  });
  const auth = `Basic ${Buffer.from(`bench:${credentials.issue('bench')}`).toString('base64')}`;
  try {
    const perRequest = async (host: string, ca: string): Promise<number[]> => {
      const tls = await through(proxy.port, auth, host, ca);
      for (let i = 0; i < 20; i += 1) await get(tls, host); // warm: the upstream connection is up too
      const times: number[] = [];
      for (let i = 0; i < REQUESTS; i += 1) {
        const t0 = now();
        await get(tls, host);
        times.push(now() - t0);
      }
      tls.destroy();
      return times;
    };
    const newConnection = async (host: string, ca: string): Promise<number[]> => {
      const times: number[] = [];
      for (let i = 0; i < HANDSHAKES + 3; i += 1) {
        const t0 = now();
        const tls = await through(proxy.port, auth, host, ca);
        await get(tls, host);
        if (i >= 3) times.push(now() - t0);
        tls.destroy();
      }
      return times;
    };
    progress('secrets: per request, tunnel vs intercepted');
    const reqTunnel = summarize(await perRequest('other.test', upstreamCa.certificate));
    const reqSecret = summarize(await perRequest('api.secret.test', sandpitCa.certificate));
    progress('secrets: new connection, tunnel vs intercepted');
    const newTunnel = summarize(await newConnection('other.test', upstreamCa.certificate));
    const newSecret = summarize(await newConnection('api.secret.test', sandpitCa.certificate));
    const addedRequest = reqSecret.p50 - reqTunnel.p50;
    const addedHandshake = newSecret.p50 - newTunnel.p50;
    process.stdout.write(
      `secrets: per request p50 tunnel ${reqTunnel.p50.toFixed(3)} ms, intercepted ${reqSecret.p50.toFixed(3)} ms (added ${addedRequest.toFixed(3)} ms); ` +
        `new connection p50 tunnel ${newTunnel.p50.toFixed(2)} ms, intercepted ${newSecret.p50.toFixed(2)} ms (added ${addedHandshake.toFixed(2)} ms)\n`,
    );
    return {
      perRequest: { tunnel: roundDistribution(reqTunnel), intercepted: roundDistribution(reqSecret), addedP50Ms: addedRequest },
      newConnection: { tunnel: roundDistribution(newTunnel), intercepted: roundDistribution(newSecret), addedP50Ms: addedHandshake },
      goals: [
        { name: 'secrets: added per request, p50', target: '≤ 1 ms', actual: `${addedRequest.toFixed(3)} ms`, met: addedRequest <= 1 },
        { name: 'secrets: added per new TLS connection, p50', target: '≤ 20 ms', actual: `${addedHandshake.toFixed(2)} ms`, met: addedHandshake <= 20 },
      ],
    };
  } finally {
    await proxy.close();
    upstream.closeAllConnections();
    await new Promise((r) => upstream.close(r));
  }
}
