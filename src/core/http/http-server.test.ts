import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { SandpitError } from '../../shared/api/errors';
import type { EventName, EventPayload } from '../../shared/api/contract';
import { rawRequest } from '../../test-support/http-client';
import { EventBus } from '../events/event-bus';
import type { Handlers } from '../api/api-types';
import type { EnvironmentView } from '../../shared/domain/environment';
import { defaultConfig } from '../config';
import type { EngineMonitor } from '../sessions/engine-monitor';
import { silentLogger } from '../log';
import { SANDPIT_VERSION } from '../version';
import { startHttpServer } from './http-server';
import type { HttpMount, HttpServerOptions, RunningHttpServer, RouteContext } from './http-server';
import type { HttpSandpit } from './http-sandpit';
import { generateToken, principalOf } from '../connect/token';

const TOKEN = generateToken();
const AUTH = { authorization: `Bearer ${TOKEN}` };
/** The web panel's own token: /api answers only to it. */
const PANEL_TOKEN = generateToken();
const PANEL_AUTH = { authorization: `Bearer ${PANEL_TOKEN}` };
const JSON_TYPE = { 'content-type': 'application/json' };

class CountingBus extends EventBus {
  listeners = 0;
  override onAny(listener: (name: EventName, payload: EventPayload<EventName>) => void): () => void {
    this.listeners += 1;
    const off = super.onAny(listener);
    return () => {
      this.listeners -= 1;
      off();
    };
  }
}

const ENVIRONMENT: EnvironmentView = {
  id: 'my-data',
  name: 'My data',
  language: 'python',
  base: 'python-data',
  packages: { pip: ['polars'], npm: [], apt: [], cran: [] },
  network: 'none',
  limits: {},
  allowedHosts: [],
  preset: false,
  createdAt: '2026-12-01T00:00:00.000Z',
  updatedAt: '2026-12-01T00:00:00.000Z',
  status: { state: 'ready', message: 'Ready: sessions start at once.' },
};

function fakeSandpit(bus = new CountingBus()): HttpSandpit & { bus: CountingBus } {
  const api: Partial<Handlers> = {
    'sessions.list': async () => ({ sessions: [] }),
    'sessions.get': async ({ sessionId }) => {
      throw new SandpitError('SESSION_NOT_FOUND', `no ${sessionId}`);
    },
    'environments.list': async () => ({ environments: [ENVIRONMENT] }),
  };
  return {
    api: api as Handlers,
    bus,
    engine: { current: { state: 'up', endpoint: '/var/run/docker.sock', version: '20.10' } } as EngineMonitor,
    config: defaultConfig(),
    log: silentLogger,
  };
}

let running: RunningHttpServer | undefined;

async function start(extra: Partial<HttpServerOptions> = {}): Promise<RunningHttpServer> {
  running = await startHttpServer({ sandpit: fakeSandpit(), port: 0, token: TOKEN, panelToken: PANEL_TOKEN, ...extra });
  return running;
}

afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe('startHttpServer', () => {
  it('listens on 127.0.0.1 only, and refuses any other address', async () => {
    const http = await start();
    expect(http.server.address()).toMatchObject({ address: '127.0.0.1', family: 'IPv4' });
    expect(http.url).toBe(`http://127.0.0.1:${http.port}`);
    await expect(
      startHttpServer({ sandpit: fakeSandpit(), port: 0, token: TOKEN, host: '0.0.0.0' as '::1' }),
    ).rejects.toThrow(/loopback/);
    await expect(startHttpServer({ sandpit: fakeSandpit(), port: 0, token: 'weak' })).rejects.toThrow(/256 bits/);
  });

  it('says CONFLICT when the port is taken', async () => {
    const http = await start();
    await expect(startHttpServer({ sandpit: fakeSandpit(), port: http.port, token: TOKEN })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
  });

  it('serves /health without a token, revealing only ok, engine and version, with safe headers', async () => {
    const { port } = await start();
    const res = await rawRequest({ port, path: '/health' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ok: true, engine: 'up', version: SANDPIT_VERSION });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses a rebound Host (403) before anything else, also on /health', async () => {
    const { port } = await start();
    for (const host of [`evil.example:${port}`, `127.0.0.1:${port + 1}`]) {
      const res = await rawRequest({ port, path: '/health', headers: { host, ...AUTH } });
      expect(res.status).toBe(403);
      expect(res.json).toMatchObject({ ok: false, error: { code: 'DENIED' } });
    }
  });

  it('needs the token for everything else: 401 with WWW-Authenticate, also for unknown paths', async () => {
    const { port } = await start();
    for (const path of ['/list-envs', '/api/nothing-here', '/api/events']) {
      const res = await rawRequest({ port, path });
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(res.json).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } });
    }
    expect((await rawRequest({ port, path: '/list-envs?token=' + TOKEN })).status).toBe(401);
  });

  it('answers 404 for unknown paths and 405 with Allow for a wrong method', async () => {
    const { port } = await start();
    expect((await rawRequest({ port, path: '/nothing-here', headers: AUTH })).status).toBe(404);
    // The panel's files are public; a path that is not one of them is a plain 404 that reveals nothing.
    const stranger = await rawRequest({ port, path: '/nothing-here' });
    expect(stranger.status).toBe(404);
    expect(stranger.text).toBe('Not found');
    const wrong = await rawRequest({ port, method: 'DELETE', path: '/list-envs', headers: AUTH });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe('GET');
  });

  it('answers preflights from our origin with 204 and no CORS grant; foreign origins get 403', async () => {
    const { port } = await start();
    const ours = await rawRequest({
      port,
      method: 'OPTIONS',
      path: '/execute',
      headers: { origin: `http://localhost:${port}`, 'access-control-request-method': 'POST' },
    });
    expect(ours.status).toBe(204);
    expect(ours.headers['access-control-allow-origin']).toBeUndefined();
    const theirs = await rawRequest({
      port,
      method: 'OPTIONS',
      path: '/execute',
      headers: { origin: 'http://evil.example' },
    });
    expect(theirs.status).toBe(403);
    const post = await rawRequest({
      port,
      method: 'POST',
      path: '/api/sessions.list',
      headers: { ...AUTH, ...JSON_TYPE, origin: 'http://evil.example' },
      body: '{}',
    });
    expect(post.status).toBe(403);
  });

  it('lists the environments the API has, as REST gives them', async () => {
    const { port } = await start();
    const res = await rawRequest({ port, path: '/list-envs', headers: AUTH });
    expect(res.json).toEqual({
      environments: [
        {
          id: 'my-data',
          name: 'My data',
          language: 'python',
          description: '',
          packages: { pip: ['polars'], npm: [], apt: [], cran: [] },
          network: 'none',
          status: 'ready',
          status_message: 'Ready: sessions start at once.',
        },
      ],
    });
  });

  it('checks /install input: packages are required', async () => {
    const { port } = await start();
    const res = await rawRequest({
      port,
      method: 'POST',
      path: '/install',
      headers: { ...AUTH, ...JSON_TYPE },
      body: '{}',
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT', message: expect.stringContaining('packages') as unknown } });
  });

  it('validates POST /execute input before touching the engine', async () => {
    const { port } = await start();
    const res = await rawRequest({
      port,
      method: 'POST',
      path: '/execute',
      headers: { ...AUTH, ...JSON_TYPE },
      body: JSON.stringify({ code: 1 }),
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    const unknown = await rawRequest({
      port,
      method: 'POST',
      path: '/execute',
      headers: { ...AUTH, ...JSON_TYPE },
      body: JSON.stringify({ code: '1', timeout_ms: 5 }),
    });
    expect(unknown.status).toBe(400);
  });

  it('dispatches /api/<method> to the handlers as envelopes, with statuses from the error map', async () => {
    const { port } = await start();
    const post = (path: string, body: string): Promise<{ status: number; json: unknown }> =>
      rawRequest({ port, method: 'POST', path, headers: { ...PANEL_AUTH, ...JSON_TYPE }, body });
    expect(await post('/api/sessions.list', '{}')).toMatchObject({
      status: 200,
      json: { ok: true, value: { sessions: [] } },
    });
    expect(await post('/api/sessions.list', '')).toMatchObject({ status: 200, json: { ok: true } });
    expect(await post('/api/sessions.get', '{"sessionId":"ses-x"}')).toMatchObject({
      status: 404,
      json: { ok: false, error: { code: 'SESSION_NOT_FOUND' } },
    });
    expect(await post('/api/sessions.get', '{}')).toMatchObject({
      status: 400,
      json: { ok: false, error: { code: 'INVALID_INPUT' } },
    });
    expect(await post('/api/no.such', '{}')).toMatchObject({
      status: 404,
      json: { ok: false, error: { code: 'NOT_FOUND' } },
    });
    expect(await post('/api/sessions.list', '{oops')).toMatchObject({
      status: 400,
      json: { ok: false, error: { code: 'INVALID_INPUT' } },
    });
  });

  it('refuses a body over the limit with 413 and Connection: close, and keeps serving', async () => {
    const { port } = await start({ limits: { maxBodyBytes: 1_024 } });
    const res = await rawRequest({
      port,
      method: 'POST',
      path: '/api/sessions.list',
      headers: { ...PANEL_AUTH, ...JSON_TYPE },
      body: JSON.stringify({ pad: 'x'.repeat(2_000) }),
    });
    expect(res.status).toBe(413);
    expect(res.headers.connection).toBe('close');
    expect(res.json).toMatchObject({ ok: false, error: { code: 'LIMIT_EXCEEDED' } });
    expect((await rawRequest({ port, path: '/health' })).status).toBe(200);
  });
});

describe('mounts', () => {
  it('get the raw request, the parsed body and the principal (never the token), behind the same guard', async () => {
    const seen: Array<{ method: string | undefined; ctx: RouteContext }> = [];
    const mount: HttpMount = {
      path: '/mcp',
      methods: ['GET', 'POST', 'DELETE'],
      handler: async (req, res, ctx) => {
        seen.push({ method: req.method, ctx });
        res.writeHead(202).end();
      },
    };
    const { port } = await start({ mounts: [mount] });
    expect(
      (
        await rawRequest({
          port,
          method: 'POST',
          path: '/mcp',
          headers: { ...AUTH, ...JSON_TYPE },
          body: '{"jsonrpc":"2.0"}',
        })
      ).status,
    ).toBe(202);
    expect((await rawRequest({ port, method: 'DELETE', path: '/mcp', headers: AUTH })).status).toBe(202);
    expect(seen.map((s) => s.method)).toEqual(['POST', 'DELETE']);
    expect(seen[0]!.ctx.body).toEqual({ jsonrpc: '2.0' });
    expect(seen[0]!.ctx.principal).toBe(principalOf(TOKEN));
    expect(JSON.stringify(seen[0]!.ctx)).not.toContain(TOKEN);
    expect((await rawRequest({ port, method: 'POST', path: '/mcp', headers: JSON_TYPE, body: '{}' })).status).toBe(401);
    expect(
      (
        await rawRequest({
          port,
          method: 'POST',
          path: '/mcp',
          headers: { ...AUTH, 'content-type': 'text/plain' },
          body: '{}',
        })
      ).status,
    ).toBe(415);
    expect(
      (
        await rawRequest({
          port,
          method: 'GET',
          path: '/mcp',
          headers: { ...AUTH, host: `localhost.evil.example:${port}` },
        })
      ).status,
    ).toBe(403);
    expect(seen).toHaveLength(2);
  });

  it('may not take over an existing path', async () => {
    const mount: HttpMount = { path: '/health', methods: ['GET'], handler: async () => undefined };
    await expect(start({ mounts: [mount] })).rejects.toThrow(/health/);
  });
});

describe('limits', () => {
  it('refuses requests over the per-token in-flight limit with 429 and Retry-After; streams count apart', async () => {
    let open = 0;
    const waiting: Array<() => void> = [];
    const slow: HttpMount = {
      path: '/slow',
      methods: ['GET'],
      handler: async (_req, res) => {
        open += 1;
        await new Promise<void>((resolve) => waiting.push(resolve));
        res.writeHead(200).end('done');
      },
    };
    const { port } = await start({ mounts: [slow], limits: { maxInFlightPerToken: 2 } });
    const events = await openStream(port);
    const first = [
      rawRequest({ port, path: '/slow', headers: AUTH }),
      rawRequest({ port, path: '/slow', headers: AUTH }),
    ];
    await waitFor(() => open === 2);
    const refused = await rawRequest({ port, path: '/slow', headers: AUTH });
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json).toMatchObject({ ok: false, error: { code: 'LIMIT_EXCEEDED' } });
    expect((await rawRequest({ port, path: '/health' })).status).toBe(200);
    for (const release of waiting.splice(0)) release();
    expect((await Promise.all(first)).map((r) => r.status)).toEqual([200, 200]);
    const again = rawRequest({ port, path: '/slow', headers: AUTH });
    await waitFor(() => open === 3);
    for (const release of waiting.splice(0)) release();
    expect((await again).status).toBe(200);
    events.close();
  });
});

describe('GET /api/events', () => {
  it('streams every bus event as SSE and unsubscribes when the client goes away', async () => {
    const sandpit = fakeSandpit();
    running = await startHttpServer({ sandpit, port: 0, token: TOKEN, panelToken: PANEL_TOKEN });
    const stream = await openStream(running.port);
    expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers['access-control-allow-origin']).toBeUndefined();
    await waitFor(() => sandpit.bus.listeners === 1);
    sandpit.bus.emit('session.removed', { sessionId: 'ses-1' });
    await waitFor(() => stream.text().includes('event: session.removed\ndata: {"sessionId":"ses-1"}\n\n'));
    stream.close();
    await waitFor(() => sandpit.bus.listeners === 0);
  });
});

interface OpenStream {
  headers: Record<string, string | string[] | undefined>;
  text(): string;
  close(): void;
}

function openStream(port: number): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/api/events', headers: { ...PANEL_AUTH, accept: 'text/event-stream' }, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('error', () => undefined);
        resolve({ headers: res.headers, text: () => text, close: () => req.destroy() });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function waitFor(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the web panel at /', () => {
  it('serves the built panel files with the CSP, publicly, and nothing outside its folder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sandpit-panel-'));
    await mkdir(join(dir, 'panel', 'assets'), { recursive: true });
    await writeFile(join(dir, 'panel', 'index.html'), '<!doctype html><title>Sandpit</title>');
    await writeFile(join(dir, 'panel', 'assets', 'app.js'), 'void 0;');
    await writeFile(join(dir, 'secret.txt'), 'do not serve');
    await symlink(join(dir, 'secret.txt'), join(dir, 'panel', 'assets', 'link.txt'));
    const { port } = await start({ panelDir: join(dir, 'panel') });
    const index = await rawRequest({ port, path: '/' });
    expect(index.status).toBe(200);
    expect(index.text).toContain('<title>Sandpit</title>');
    expect(index.headers['content-security-policy']).toContain("script-src 'self'");
    expect(index.headers['x-frame-options']).toBe('DENY');
    const js = await rawRequest({ port, path: '/assets/app.js' });
    expect(js.headers['content-type']).toMatch(/^text\/javascript/);
    for (const path of ['/../secret.txt', '/assets/..%2f..%2fsecret.txt', '/%2e%2e/secret.txt', '/assets/link.txt']) {
      const res = await rawRequest({ port, path });
      expect(res.status, path).toBe(404);
      expect(res.text).not.toContain('do not serve');
    }
    await rm(dir, { recursive: true, force: true });
  });

  it('says how to build the panel when it is not built', async () => {
    const { port } = await start({ panelDir: join(tmpdir(), 'sandpit-no-panel-here') });
    const res = await rawRequest({ port, path: '/' });
    expect(res.status).toBe(200);
    expect(res.text).toContain('npm run build');
  });
});

describe('the panel token and the clients\' token', () => {
  it('opens /api only with the panel token: the token handed to assistants gets 403 there', async () => {
    const panelToken = PANEL_TOKEN;
    const { port } = await start();
    const asClient = await rawRequest({ port, method: 'POST', path: '/api/sessions.list', headers: { ...AUTH, 'content-type': 'application/json' }, body: '{}' });
    expect(asClient.status).toBe(403);
    expect(asClient.json).toMatchObject({ ok: false, error: { code: 'DENIED' } });
    const events = await rawRequest({ port, path: '/api/events', headers: AUTH });
    expect(events.status).toBe(403);
    const asPanel = await rawRequest({ port, method: 'POST', path: '/api/sessions.list', headers: { authorization: `Bearer ${panelToken}`, 'content-type': 'application/json' }, body: '{}' });
    expect(asPanel.status).toBe(200);
    // The clients' token still works where clients belong.
    expect((await rawRequest({ port, path: '/list-envs', headers: AUTH })).status).toBe(200);
  });
});
