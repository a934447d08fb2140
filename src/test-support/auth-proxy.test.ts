import { createServer, request } from 'node:http';
import type { IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../core/util/with-timeout';
import { rewriteHost, rewriteOrigin, startAuthProxy } from './auth-proxy';
import type { AuthProxy } from './auth-proxy';
import { rawRequest } from './http-client';

const TOKEN = 'x'.repeat(43);

describe('rewriteHost / rewriteOrigin', () => {
  it('moves only the proxy’s own loopback addresses to the target port', () => {
    expect(rewriteHost('127.0.0.1:1000', 1000, 2000)).toBe('127.0.0.1:2000');
    expect(rewriteHost('LOCALHOST:1000', 1000, 2000)).toBe('localhost:2000');
    expect(rewriteHost('[::1]:1000', 1000, 2000)).toBe('[::1]:2000');
    expect(rewriteHost('evil.example.com', 1000, 2000)).toBe('evil.example.com');
    expect(rewriteHost('127.0.0.1:1001', 1000, 2000)).toBe('127.0.0.1:1001');
    expect(rewriteOrigin('http://localhost:1000', 1000, 2000)).toBe('http://localhost:2000');
    expect(rewriteOrigin('http://evil.example.com', 1000, 2000)).toBe('http://evil.example.com');
    expect(rewriteOrigin('https://127.0.0.1:1000', 1000, 2000)).toBe('https://127.0.0.1:1000');
  });
});

describe('the auth proxy', () => {
  let upstream: Server;
  let upstreamPort: number;
  let proxy: AuthProxy;
  let seen: IncomingHttpHeaders[] = [];
  let held: ServerResponse | undefined;
  let heldClosed = false;

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      seen.push(req.headers);
      if (req.url === '/stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: first\n\n');
        held = res;
        res.on('close', () => {
          heldClosed = true;
        });
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        res.writeHead(201, { 'content-type': 'application/json', 'x-echo': 'yes' });
        res.end(JSON.stringify({ body: Buffer.concat(chunks).toString('utf8') }));
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', () => resolve()));
    upstreamPort = (upstream.address() as AddressInfo).port;
    proxy = await startAuthProxy({ targetPort: upstreamPort, token: TOKEN });
  });
  afterAll(async () => {
    await proxy?.close();
    upstream?.closeAllConnections();
    await new Promise<void>((resolve) => (upstream ? upstream.close(() => resolve()) : resolve()));
  });

  it('adds the bearer token and moves its own Host and Origin to the target’s port', async () => {
    seen = [];
    const res = await rawRequest({
      port: proxy.port,
      method: 'POST',
      path: '/echo',
      headers: { origin: `http://127.0.0.1:${proxy.port}`, 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(res.status).toBe(201);
    expect(res.headers['x-echo']).toBe('yes');
    expect(res.json).toEqual({ body: '{"a":1}' });
    expect(seen[0]).toMatchObject({
      host: `127.0.0.1:${upstreamPort}`,
      origin: `http://127.0.0.1:${upstreamPort}`,
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
    });
  });

  it('passes any other Host and Origin, and a token the client brings, through unchanged', async () => {
    seen = [];
    await rawRequest({
      port: proxy.port,
      path: '/echo',
      headers: { host: 'evil.example.com', origin: 'http://evil.example.com', authorization: 'Bearer theirs' },
    });
    expect(seen[0]).toMatchObject({
      host: 'evil.example.com',
      origin: 'http://evil.example.com',
      authorization: 'Bearer theirs',
    });
  });

  it('streams a response as it is written, and drops the upstream request when the client goes away', async () => {
    heldClosed = false;
    let received = '';
    const req = request({ host: '127.0.0.1', port: proxy.port, path: '/stream', agent: false });
    req.on('response', (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        received += chunk;
      });
      res.on('error', () => undefined);
    });
    req.on('error', () => undefined);
    req.end();
    // The upstream response is still open: the first event must arrive anyway.
    await pollUntil(() => (received.includes('data: first') ? true : undefined), 5_000, 'the first SSE event');
    held?.write('data: second\n\n');
    await pollUntil(() => (received.includes('data: second') ? true : undefined), 5_000, 'the second SSE event');
    req.destroy();
    await pollUntil(() => (heldClosed ? true : undefined), 5_000, 'the upstream stream to close');
  });
});
