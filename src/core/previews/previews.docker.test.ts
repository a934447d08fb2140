import { createHash, randomBytes } from 'node:crypto';
import { Agent, createServer, request } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../api/dispatcher';
import { startTestSandpit } from '../../test-support/sandpit';
import { connectInProcess } from '../../test-support/in-process-mcp';
import type { TestSandpit } from '../../test-support/sandpit';

const PANEL = { transport: 'ipc', client: 'panel' } as const;

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  reused: boolean;
  /** When the first byte of the body came, and when the last did (ms since the request). */
  firstByteMs: number;
  lastByteMs: number;
}

/** A plain node:http GET (fetch drops a custom Host header). */
function get(url: string, options: { cookie?: string; host?: string; agent?: Agent } = {}): Promise<Answer> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const req = request(
      {
        host: '127.0.0.1',
        port: target.port,
        path: `${target.pathname}${target.search}`,
        headers: {
          ...(options.cookie ? { cookie: options.cookie } : {}),
          ...(options.host ? { host: options.host } : {}),
        },
        ...(options.agent ? { agent: options.agent } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let firstByteMs = -1;
        res.on('data', (chunk: Buffer) => {
          if (firstByteMs < 0) firstByteMs = Date.now() - started;
          chunks.push(chunk);
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
            reused: req.reusedSocket,
            firstByteMs,
            lastByteMs: Date.now() - started,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Follows the capability link once: the cookie it sets is what every later request carries. */
async function cookieFor(url: string): Promise<string> {
  const first = await get(url);
  expect(first.status).toBe(302);
  const setCookie = first.headers['set-cookie']?.[0] ?? '';
  expect(setCookie).toMatch(/HttpOnly; SameSite=Strict$/);
  expect(first.headers.location).not.toContain('sandpit_preview=');
  return setCookie.split(';')[0]!;
}

/** A WebSocket echo server from Python's standard library (RFC 6455 handshake, unmasked text replies). */
const WS_ECHO = String.raw`
import base64, hashlib, socket, struct, threading
def serve(c):
    head = b''
    while b'\r\n\r\n' not in head:
        head += c.recv(4096)
    key = [l.split(b':', 1)[1].strip() for l in head.split(b'\r\n') if l.lower().startswith(b'sec-websocket-key')][0]
    accept = base64.b64encode(hashlib.sha1(key + b'258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest())
    c.sendall(b'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ' + accept + b'\r\n\r\n')
    while True:
        h = c.recv(2)
        if len(h) < 2: return
        n = h[1] & 127
        mask = c.recv(4)
        data = bytearray(c.recv(n))
        for i in range(n): data[i] ^= mask[i % 4]
        if h[0] & 15 == 8: return
        c.sendall(bytes([0x81, len(data)]) + bytes(data))
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('0.0.0.0', 8765)); s.listen()
while True:
    threading.Thread(target=serve, args=(s.accept()[0],), daemon=True).start()
`;

/** Upgrades to a WebSocket through the preview, sends one masked text frame, resolves with the echoed text. */
function wsEcho(
  url: string,
  cookie: string | undefined,
  message: string,
): Promise<{ status: number; echoed?: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port: target.port,
      path: '/ws',
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
        ...(cookie ? { cookie } : {}),
      },
    });
    req.on('upgrade', (_res, socket: Socket) => {
      const payload = Buffer.from(message);
      const mask = randomBytes(4);
      const masked = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]!));
      socket.write(Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, masked]));
      socket.once('data', (frame: Buffer) => {
        resolve({ status: 101, echoed: frame.subarray(2, 2 + (frame[1]! & 127)).toString('utf8') });
        socket.destroy();
      });
    });
    req.on('response', (res) => {
      resolve({ status: res.statusCode ?? 0 });
      res.resume();
    });
    req.on('error', reject);
    req.end();
  });
}

describe('previews of what a sandbox serves (preview_port over MCP, real engine, runc socket channel)', () => {
  let sp: TestSandpit;
  let client: Client;
  let closeMcp: () => Promise<void>;
  const tool = async <T>(
    name: string,
    args: Record<string, unknown> = {},
  ): Promise<{ value: T; text: string; isError: boolean }> => {
    const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
    return {
      value: r.structuredContent as T,
      text: r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n'),
      isError: r.isError ?? false,
    };
  };
  const start = async (sessionId: string, command: string): Promise<string> => {
    const r = await tool<{ process_id: string }>('start_process', { session_id: sessionId, command });
    expect(r.isError, r.text).toBe(false);
    return r.value.process_id;
  };
  const preview = async (
    sessionId: string,
    port: number,
    extra: Record<string, unknown> = {},
  ): Promise<{ url: string; preview_id: string; text: string }> => {
    const r = await tool<{ url: string; preview_id: string }>('preview_port', {
      session_id: sessionId,
      port,
      wait_seconds: 20,
      ...extra,
    });
    expect(r.isError, r.text).toBe(false);
    return { ...r.value, text: r.text };
  };

  beforeAll(async () => {
    sp = await startTestSandpit();
    const connected = await connectInProcess(sp, 'preview-test', 'mcp:preview-test');
    client = connected.client;
    closeMcp = connected.close;
  });
  afterAll(async () => {
    await closeMcp?.();
    await sp?.cleanup();
  });

  it("serves Python's http.server on an origin of its own: link → cookie, keep-alive, parallel requests, a large download; 401 without it, a foreign Host refused", async () => {
    const sessionId = (await call(sp.api, 'sessions.create', {}, PANEL)).id;
    await call(
      sp.api,
      'sessions.runCommand',
      {
        sessionId,
        command:
          'mkdir -p site && echo "<h1>Sales</h1>" > site/index.html && head -c 67108864 /dev/urandom > site/big.bin && sha256sum site/big.bin',
      },
      PANEL,
    );
    const sum = (
      await call(sp.api, 'sessions.runCommand', { sessionId, command: 'sha256sum site/big.bin | cut -d" " -f1' }, PANEL)
    ).stdout.trim();
    await start(sessionId, 'cd site && exec python3 -m http.server 8000');
    const p = await preview(sessionId, 8000);
    expect(p.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?sandpit_preview=[A-Za-z0-9_-]{43}$/);
    expect(p.text).toContain("The person can open it from the Sandpit panel (the session's Preview tab)");
    const origin = new URL(p.url).origin;
    // Never the panel's or the MCP endpoint's origin.
    expect(new URL(p.url).port).not.toBe(String(sp.config.port));

    const none = await get(`${origin}/`);
    expect([none.status, none.body.toString()]).toEqual([
      401,
      "This preview needs its link: open it from Sandpit (the session's Preview tab), or use the link preview_port gave.\n",
    ]);
    const wrong = await get(`${origin}/?sandpit_preview=${'x'.repeat(43)}`);
    expect(wrong.status).toBe(401);

    const cookie = await cookieFor(p.url);
    const rebound = await get(`${origin}/`, { cookie, host: `evil.example:${new URL(p.url).port}` });
    expect([rebound.status, rebound.body.toString()]).toEqual([421, `This preview answers only at ${origin}.\n`]);

    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const page = await get(`${origin}/`, { cookie, agent });
    expect([page.status, page.body.toString()]).toEqual([200, '<h1>Sales</h1>\n']);
    expect(page.headers['access-control-allow-origin']).toBeUndefined();
    const again = await get(`${origin}/index.html`, { cookie, agent });
    expect([again.status, again.reused]).toEqual([200, true]);
    agent.destroy();

    const parallel = await Promise.all(Array.from({ length: 24 }, () => get(`${origin}/index.html`, { cookie })));
    expect(parallel.map((a) => a.status)).toEqual(Array.from({ length: 24 }, () => 200));

    const big = await get(`${origin}/big.bin`, { cookie });
    expect([big.status, big.body.length]).toEqual([200, 64 * 1024 * 1024]);
    expect(createHash('sha256').update(big.body).digest('hex')).toBe(sum);

    // Listed with its session, audited with who opened it.
    const listed = await tool<{
      sessions: Array<{ session_id: string; previews?: Array<{ port: number; url: string }> }>;
    }>('list_sessions');
    expect(listed.value.sessions.find((s) => s.session_id === sessionId)?.previews).toEqual([
      { preview_id: p.preview_id, port: 8000, url: p.url },
    ]);
    expect(listed.text).toContain(`  preview of port 8000: ${p.url} (the person can open it from the Sandpit panel)`);
    const row = sp.audit
      .list({ limit: 100 })
      .rows.find((r) => r.method === 'previews.open' && r.sessionId === sessionId)!;
    const entry = sp.audit.get(row.id)!;
    expect([entry.status, entry.code, entry.client]).toEqual(['ok', 'port 8000', 'preview-test']);
    expect(entry.stdout).toBe(`Opened a preview of port 8000 at ${origin}/`);
    expect(JSON.stringify(entry)).not.toContain(new URL(p.url).searchParams.get('sandpit_preview')!);
  });

  it('streams a response for 10 s from a Node server (bytes arrive as they are written) and carries a WebSocket echo', async () => {
    const sessionId = (await call(sp.api, 'sessions.create', { language: 'javascript' }, PANEL)).id;
    await start(
      sessionId,
      `exec node -e "require('http').createServer((q, s) => { s.writeHead(200, { 'content-type': 'text/plain' }); let i = 0; const t = setInterval(() => { s.write('tick ' + (++i) + '\\n'); if (i === 20) { clearInterval(t); s.end(); } }, 500); }).listen(3000)"`,
    );
    const p = await preview(sessionId, 3000);
    const cookie = await cookieFor(p.url);
    const streamed = await get(new URL(p.url).origin + '/', { cookie });
    expect(streamed.status).toBe(200);
    expect(streamed.body.toString().split('\n').filter(Boolean)).toEqual(
      Array.from({ length: 20 }, (_, i) => `tick ${i + 1}`),
    );
    expect(streamed.lastByteMs - streamed.firstByteMs).toBeGreaterThan(8_000);

    const pySession = (await call(sp.api, 'sessions.create', {}, PANEL)).id;
    await call(sp.api, 'files.write', { sessionId: pySession, path: 'ws.py', content: WS_ECHO }, PANEL);
    await start(pySession, 'exec python3 ws.py');
    const ws = await preview(pySession, 8765);
    const wsCookie = await cookieFor(ws.url);
    expect(await wsEcho(ws.url, wsCookie, 'hello through the tunnel')).toEqual({
      status: 101,
      echoed: 'hello through the tunnel',
    });
    expect(await wsEcho(ws.url, undefined, 'no cookie')).toEqual({ status: 401 });
  });

  it('says plainly when nothing listens, and never reaches a host port or another session', async () => {
    const sessionId = (await call(sp.api, 'sessions.create', {}, PANEL)).id;
    const nothing = await tool('preview_port', { session_id: sessionId, port: 8000 });
    expect(nothing.isError).toBe(true);
    expect(nothing.text).toContain('nothing listens on port 8000 in this session; start your app first');

    // A server on this computer's loopback: the sandbox's loopback is its own.
    const host: Server = createServer((_q, s) => s.end('host secret'));
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', () => resolve()));
    const hostPort = (host.address() as { port: number }).port;
    try {
      const hostTry = await tool('preview_port', { session_id: sessionId, port: hostPort });
      expect(hostTry.text).toContain(`nothing listens on port ${hostPort} in this session; start your app first`);
    } finally {
      host.close();
    }

    // Another session listens on 8001: this one has nothing there.
    const other = (await call(sp.api, 'sessions.create', {}, PANEL)).id;
    await start(other, 'exec python3 -m http.server 8001');
    await preview(other, 8001);
    const crossTry = await tool('preview_port', { session_id: sessionId, port: 8001 });
    expect(crossTry.text).toContain('nothing listens on port 8001 in this session; start your app first');

    // Code in the sandbox that connects to the tunnel's socket with a made-up hello is cut off; the preview goes on.
    const intruder = await call(
      sp.api,
      'sessions.execute',
      {
        sessionId: other,
        code: 'import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect(\'/run/sandpit/preview-tunnel.sock\')\ns.sendall(b\'{"secret": "guess", "role": "control", "port": 8001}\\n\')\ns.settimeout(5)\nprint(repr(s.recv(100)))',
      },
      PANEL,
    );
    expect(intruder.stdout).toBe("b''\n");
    const listing = (await call(sp.api, 'previews.list', { sessionId: other }, PANEL)).previews[0]!;
    const cookie = await cookieFor(listing.url);
    expect((await get(`${listing.origin}/`, { cookie })).status).toBe(200);
  });

  it('ends with its app and with its session, and says why', async () => {
    const sessionId = (await call(sp.api, 'sessions.create', {}, PANEL)).id;
    const app = await start(sessionId, 'exec python3 -m http.server 8000');
    const p = await preview(sessionId, 8000);
    const cookie = await cookieFor(p.url);
    await tool('stop_process', { process_id: app });
    await expect
      .poll(async () => (await call(sp.api, 'previews.list', { sessionId }, PANEL)).previews[0]?.endedBy, {
        timeout: 10_000,
      })
      .toBe('nothing listens on port 8000 any more (its app stopped)');
    const gone = await get(new URL(p.url).origin + '/', { cookie });
    expect([gone.status, gone.body.toString()]).toEqual([
      410,
      'This preview ended: nothing listens on port 8000 any more (its app stopped).\n',
    ]);

    await start(sessionId, 'exec python3 -m http.server 8000');
    const second = await preview(sessionId, 8000);
    const secondCookie = await cookieFor(second.url);
    await tool('stop_session', { session_id: sessionId });
    const ended = await get(new URL(second.url).origin + '/', { cookie: secondCookie });
    expect([ended.status, ended.body.toString()]).toEqual([410, 'This preview ended: its session was stopped.\n']);

    // The person stops a preview: its port answers no more.
    const third = (await call(sp.api, 'sessions.create', {}, PANEL)).id;
    await start(third, 'exec python3 -m http.server 8000');
    const stopped = await preview(third, 8000);
    const result = await call(sp.api, 'previews.stop', { previewId: stopped.preview_id }, PANEL);
    expect([result.state, result.endedBy]).toEqual(['ended', 'the person stopped it in the panel']);
    await expect(get(stopped.url)).rejects.toThrow(/ECONNREFUSED/);
  });
});
