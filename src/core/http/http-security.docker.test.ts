import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../../test-support/http-client';
import type { RawRequest, RawResponse } from '../../test-support/http-client';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { startHttpServer } from './http-server';
import type { RunningHttpServer } from './http-server';
import { generateToken } from '../connect/token';
import { newSession } from '../../test-support/sessions';

const MB = 1024 * 1024;
const TOKEN = generateToken();
const AUTH = { authorization: `Bearer ${TOKEN}` };
const JSON_TYPE = { 'content-type': 'application/json' };

let sandpit: TestSandpit;
let http: RunningHttpServer;
const seen: RawResponse[] = [];

/** Every response any test got, to check that none grants CORS. */
async function send(options: Omit<RawRequest, 'port'>): Promise<RawResponse> {
  const response = await rawRequest({ port: http.port, ...options });
  seen.push(response);
  return response;
}

beforeAll(async () => {
  sandpit = await startTestSandpit();
  http = await startHttpServer({ sandpit, port: 0, token: TOKEN });
});

afterAll(async () => {
  await http?.close();
  await sandpit?.cleanup();
});

function settleGc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

describe('HTTP security against the real core', () => {
  it('listens on 127.0.0.1 only', () => {
    expect(http.server.address()).toMatchObject({ address: '127.0.0.1' });
  });

  it('refuses requests without the token or with a wrong one (401)', async () => {
    for (const headers of [
      {},
      { authorization: `Bearer ${generateToken()}` },
      { authorization: `Bearer ${TOKEN.slice(0, -1)}` },
      { authorization: TOKEN },
    ]) {
      const res = await send({
        method: 'POST',
        path: '/api/sessions.list',
        headers: { ...headers, ...JSON_TYPE },
        body: '{}',
      });
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(res.json).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } });
    }
  });

  it('refuses a rebound Host (DNS rebinding) and our name on another port (403)', async () => {
    for (const host of [`evil.example:${http.port}`, `127.0.0.1:${http.port + 1}`, 'evil.example']) {
      const res = await send({ path: '/list-envs', headers: { host, ...AUTH } });
      expect(res.status).toBe(403);
      expect(res.json).toMatchObject({ ok: false, error: { code: 'DENIED' } });
    }
    expect((await send({ path: '/list-envs', headers: { host: `localhost:${http.port}`, ...AUTH } })).status).toBe(200);
  });

  it('refuses a foreign Origin (403), token or not', async () => {
    const res = await send({
      method: 'POST',
      path: '/execute',
      headers: { ...AUTH, ...JSON_TYPE, origin: 'http://evil.example' },
      body: '{"code":"print(1)"}',
    });
    expect(res.status).toBe(403);
    expect(
      (
        await send({
          method: 'OPTIONS',
          path: '/execute',
          headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' },
        })
      ).status,
    ).toBe(403);
    expect(sandpit.sessions.list()).toEqual([]);
  });

  it('refuses a body that is not JSON (415) and malformed JSON (400)', async () => {
    const plain = await send({
      method: 'POST',
      path: '/execute',
      headers: { ...AUTH, 'content-type': 'text/plain' },
      body: 'print(1)',
    });
    expect(plain.status).toBe(415);
    const form = await send({
      method: 'POST',
      path: '/install',
      headers: { ...AUTH, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1',
    });
    expect(form.status).toBe(415);
    const broken = await send({
      method: 'POST',
      path: '/execute',
      headers: { ...AUTH, ...JSON_TYPE },
      body: '{"code": "print(1)"',
    });
    expect(broken.status).toBe(400);
    expect(broken.json).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
  });

  it('answers a 50 MB body with 413 quickly, without buffering it, and keeps serving', async () => {
    settleGc();
    const rssBefore = process.memoryUsage().rss;
    const started = Date.now();
    const { status, connection } = await postHuge(http.port, 50 * MB);
    const elapsed = Date.now() - started;
    expect(status).toBe(413);
    expect(connection).toBe('close');
    expect(elapsed).toBeLessThan(5_000);
    settleGc();
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(64 * MB);
    expect((await send({ path: '/health' })).status).toBe(200);
  });

  it('refuses a declared Content-Length over the limit before reading the body', async () => {
    const { status } = await postHuge(http.port, 50 * MB, true);
    expect(status).toBe(413);
  });

  it('serves /health without a token and leaks no session data', async () => {
    const session = await newSession(sandpit, { language: 'python' });
    try {
      const res = await send({ path: '/health' });
      expect(res.status).toBe(200);
      expect(Object.keys(res.json as object).sort()).toEqual(['engine', 'ok', 'version']);
      expect(res.json).toMatchObject({ ok: true, engine: 'up' });
      expect(res.text).not.toContain(session.id);
      expect(res.text).not.toContain(session.containerId);
    } finally {
      await sandpit.sessions.stop(session.id);
    }
  });

  it('limits one token to 16 requests in flight: a flood of 200 gets 429s, the rest succeed, memory stays bounded', async () => {
    settleGc();
    const rssBefore = process.memoryUsage().rss;
    const body = JSON.stringify({ code: 'import time\ntime.sleep(1)\nprint("slept")' });
    const responses = await Promise.all(
      Array.from({ length: 200 }, () =>
        send({ method: 'POST', path: '/execute', headers: { ...AUTH, ...JSON_TYPE }, body, timeoutMs: 110_000 }),
      ),
    );
    const ok = responses.filter((r) => r.status === 200);
    const limited = responses.filter((r) => r.status === 429);
    expect(ok.length + limited.length).toBe(200);
    expect(ok.length).toBeGreaterThanOrEqual(16);
    expect(limited.length).toBeGreaterThan(100);
    for (const r of ok) expect(r.json).toMatchObject({ stdout: 'slept\n', exit_code: 0 });
    for (const r of limited) {
      expect(r.headers['retry-after']).toBe('1');
      expect(r.json).toMatchObject({ ok: false, error: { code: 'LIMIT_EXCEEDED' } });
    }
    settleGc();
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(64 * MB);
    expect(sandpit.sessions.list()).toEqual([]);
  });

  it('never sends Access-Control-Allow-Origin', () => {
    expect(seen.length).toBeGreaterThan(200);
    for (const res of seen) expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

/** POSTs `size` bytes of JSON-ish filler in 1 MiB chunks, honouring backpressure; resolves with the answer. */
function postHuge(
  port: number,
  size: number,
  declare = false,
): Promise<{ status: number; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...AUTH, ...JSON_TYPE };
    if (declare) headers['content-length'] = String(size);
    const req = request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/execute',
      headers,
      agent: false,
      timeout: 30_000,
    });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
    });
    // Once the server has answered and closed, our remaining writes fail: that is expected.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    req.on('timeout', () => req.destroy(new Error('no answer to the large body')));
    const chunk = Buffer.alloc(MB, 0x20);
    let sent = 0;
    const pump = (): void => {
      while (sent < size && !req.destroyed) {
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!req.destroyed) req.end();
    };
    pump();
  });
}
