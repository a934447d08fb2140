// env-proxy.js (Node's own clients through HTTPS_PROXY), preloaded the way the image does (NODE_OPTIONS=--require)
// into a node process of the Node that runs vitest (override with SANDPIT_TEST_NODE): a CONNECT proxy and an
// HTTPS server on loopback stand for Sandpit's egress proxy and a host beyond it. The docker tests do the same
// from inside the JavaScript image (its Node 18).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretAuthority } from '../../../src/core/egress/secret-ca';

const PRELOAD = join(import.meta.dirname, 'env-proxy.js');
const NODE = process.env.SANDPIT_TEST_NODE ?? process.execPath;
const AUTH = `Basic ${Buffer.from('ses_1:pass word').toString('base64')}`;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runNode(script: string, env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, ['-e', script], { env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: `--require ${PRELOAD}`, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('env-proxy.js: fetch, https and http through the proxy the environment names', () => {
  const ca = createSecretAuthority('env-proxy test CA');
  const dir = mkdtempSync(join(tmpdir(), 'sandpit-env-proxy-'));
  const caFile = join(dir, 'ca.pem');
  const connects: Array<{ target: string; auth: string | undefined }> = [];
  let upstream: Server;
  let plain: Server;
  let proxy: Server;
  let proxyUrl = '';

  beforeAll(async () => {
    writeFileSync(caFile, ca.certificate);
    const leaf = ca.leafFor('api.example.test');
    const answer = (req: IncomingMessage, res: ServerResponse): void => {
      const body = JSON.stringify({ host: req.headers.host, path: req.url, authorization: req.headers.authorization ?? null });
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    };
    upstream = createHttpsServer({ key: leaf.key, cert: leaf.cert }, answer);
    plain = createServer(answer);
    proxy = createServer((_req, res) => res.writeHead(400).end());
    // The stand-in for the egress proxy: api.example.test:443 goes to the HTTPS server, plain.example.test:80 to
    // the HTTP one; blocked.example.test is refused the way Sandpit's proxy refuses (403 + X-Sandpit-Refused).
    proxy.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
      connects.push({ target: req.url ?? '', auth: req.headers['proxy-authorization'] });
      const to = { 'api.example.test:443': upstream, 'plain.example.test:80': plain }[req.url ?? ''];
      if (!to || req.headers['proxy-authorization'] !== AUTH) {
        client.end('HTTP/1.1 403 Forbidden\r\nX-Sandpit-Refused: host-not-allowed\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      const server = connect((to.address() as AddressInfo).port, '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length) server.write(head);
        server.pipe(client).pipe(server);
      });
      server.on('error', () => client.destroy());
      client.on('error', () => server.destroy());
    });
    for (const s of [upstream, plain, proxy]) await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://ses_1:pass%20word@127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const s of [upstream, plain, proxy]) await new Promise<void>((resolve) => s.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  const env = (): Record<string, string> => ({ HTTPS_PROXY: proxyUrl, HTTP_PROXY: proxyUrl, NO_PROXY: '', NODE_EXTRA_CA_CERTS: caFile });

  it('fetch and https.get reach a host only through a CONNECT tunnel with the credential, TLS verified inside it', async () => {
    connects.length = 0;
    const script = [
      "const https = require('https');",
      '(async () => {',
      "  const viaFetch = await (await fetch('https://api.example.test/f?x=1', { headers: { authorization: 'Bearer sandpit-secret-openai' } })).json();",
      "  const viaHttps = await new Promise((resolve, reject) => https.get('https://api.example.test/h', (res) => { let b = ''; res.on('data', (c) => (b += c)); res.on('end', () => resolve(JSON.parse(b))); }).on('error', reject));",
      "  const viaHttp = await new Promise((resolve, reject) => require('http').get('http://plain.example.test/p', (res) => { let b = ''; res.on('data', (c) => (b += c)); res.on('end', () => resolve(JSON.parse(b))); }).on('error', reject));",
      '  console.log(JSON.stringify([viaFetch, viaHttps, viaHttp]));',
      '})().catch((e) => { console.log(JSON.stringify({ failed: e.message, cause: e.cause && e.cause.message })); });',
    ].join('\n');
    const run = await runNode(script, env());
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual([
      { host: 'api.example.test', path: '/f?x=1', authorization: 'Bearer sandpit-secret-openai' },
      { host: 'api.example.test', path: '/h', authorization: null },
      { host: 'plain.example.test', path: '/p', authorization: null },
    ]);
    expect(connects.map((c) => c.target).sort()).toEqual(['api.example.test:443', 'api.example.test:443', 'plain.example.test:80']);
    expect(connects.every((c) => c.auth === AUTH)).toBe(true);
  }, 30_000);

  it('a refusal of the proxy is the error the code gets, in the proxy’s words; a certificate the sandbox does not trust fails', async () => {
    const script = [
      "const https = require('https');",
      '(async () => {',
      "  const f = await fetch('https://blocked.example.test/').then(() => 'reached', (e) => e.cause ? e.cause.message : e.message);",
      "  const h = await new Promise((resolve) => https.get('https://blocked.example.test/', () => resolve('reached')).on('error', (e) => resolve(e.message)));",
      "  const untrusted = await fetch('https://api.example.test/').then(() => 'reached', (e) => e.cause ? e.cause.code : e.message);",
      '  console.log(JSON.stringify([f, h, untrusted]));',
      '})();',
    ].join('\n');
    const { NODE_EXTRA_CA_CERTS: _ca, ...noCa } = env();
    const run = await runNode(script, noCa);
    const [f, h, untrusted] = JSON.parse(run.stdout) as string[];
    expect(f).toBe('The proxy refused CONNECT blocked.example.test:443: HTTP/1.1 403 Forbidden (host-not-allowed)');
    expect(h).toBe(f);
    expect(untrusted).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED|UNABLE_TO_GET_ISSUER/);
  }, 30_000);

  it('does nothing without a proxy variable, and writes nothing to stdout or stderr either way', async () => {
    const script = "const https = require('https'); process.stdout.write(https.globalAgent.constructor.name + ' ' + (fetch.toString().includes('ready') ? 'wrapped' : 'native'))";
    const without = await runNode(script, {});
    expect(without).toEqual({ code: 0, stdout: 'Agent native', stderr: '' });
    const withProxy = await runNode(script, env());
    expect(withProxy).toEqual({ code: 0, stdout: 'TunnelAgent wrapped', stderr: '' });
  }, 30_000);

  it('requiring it (as the image build does for every agent module) installs nothing', async () => {
    const run = await runNode(`require(${JSON.stringify(PRELOAD)}); process.stdout.write(String(require('https').globalAgent.constructor.name))`, { ...env(), NODE_OPTIONS: '' });
    expect(run.stdout).toBe('Agent');
  });
});
