import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawMcpHttp } from '../../test-support/raw-mcp-http';
import type { McpHttpAnswer } from '../../test-support/raw-mcp-http';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { startHttpServer } from '../http/http-server';
import type { RunningHttpServer } from '../http/http-server';
import { generateToken } from '../connect/token';
import { pollUntil } from '../util/with-timeout';
import { createMcpHttpMount, DEFAULT_MCP_SESSION_LIMITS, mcpPrincipal } from './http-mount';
import type { McpHttpMount, McpHttpMountOptions } from './http-mount';

const MIB = 1024 * 1024;

interface Served {
  sp: TestSandpit;
  mount: McpHttpMount;
  http: RunningHttpServer;
  token: string;
  raw: RawMcpHttp;
  clients: Client[];
  connect(name: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }>;
  cleanup(): Promise<void>;
}

async function serve(options: McpHttpMountOptions, idleTtlMs?: number): Promise<Served> {
  const sp = await startTestSandpit(idleTtlMs === undefined ? {} : { idleTtlMs });
  const token = generateToken();
  const mount = createMcpHttpMount(sp, options);
  const http = await startHttpServer({ sandpit: sp, port: 0, token, mounts: [mount.route], panelDir: false });
  const clients: Client[] = [];
  return {
    sp,
    mount,
    http,
    token,
    raw: new RawMcpHttp(http.url, token),
    clients,
    connect: async (name) => {
      const transport = new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      });
      const client = new Client({ name, version: '1.0.0' });
      await client.connect(transport);
      clients.push(client);
      return { client, transport };
    },
    cleanup: async () => {
      for (const c of clients) await c.close().catch(() => undefined);
      await http.close();
      await mount.close();
      await sp.cleanup();
    },
  };
}

async function execute(client: Client, code: string): Promise<{ session_id: string; result?: string }> {
  const result = (await client.callTool({ name: 'execute_code', arguments: { code } })) as CallToolResult;
  expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
  return result.structuredContent as { session_id: string; result?: string };
}

/** `count` initializes never used again, `parallel` at a time; returns the most sessions the mount held meanwhile. */
async function flood(s: Served, count: number, parallel = 4): Promise<number> {
  let most = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        next += 1;
        await s.raw.initialize(`flood-${next}`, false);
        most = Math.max(most, s.mount.sessionCount());
      }
    }),
  );
  return most;
}

/** The V8 heap in use after full collections (gc made reachable for this check). */
function heapAfterGc(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

describe('MCP over HTTP: at most N sessions per token', () => {
  const CAP = 8;
  let s: Served;

  beforeAll(async () => {
    // No expiry during these tests: only the cap is at work.
    s = await serve({ maxSessionsPerPrincipal: CAP, idleTimeoutMs: 600_000, unusedTimeoutMs: 600_000 });
  });
  afterAll(async () => {
    await s?.cleanup();
  });

  it('has sensible defaults', () => {
    expect(createMcpHttpMount(s.sp).limits).toEqual(DEFAULT_MCP_SESSION_LIMITS);
    expect(DEFAULT_MCP_SESSION_LIMITS).toEqual({
      maxSessionsPerPrincipal: 64,
      idleTimeoutMs: 30 * 60_000,
      unusedTimeoutMs: 2 * 60_000,
    });
  });

  it('holds the count at the cap under a flood of initializes, while a client calling tools and a used idle session keep working', async () => {
    const { client } = await s.connect('in-use');
    const first = await execute(client, 'calls = 0');
    const idle = await s.raw.initialize('used-then-idle');
    const listed = await s.raw.post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, idle.sessionId);
    expect(listed.status).toBe(200);

    let flooding = true;
    let calls = 0;
    const calling = (async (): Promise<void> => {
      while (flooding) {
        const out = await execute(client, 'calls += 1\ncalls');
        calls += 1;
        expect(out).toMatchObject({ session_id: first.session_id, result: String(calls) });
      }
    })();
    const most = await flood(s, 200);
    flooding = false;
    await calling;

    expect(most).toBeLessThanOrEqual(CAP);
    expect(s.mount.sessionCount()).toBe(CAP);
    expect(calls).toBeGreaterThan(0);
    expect((await execute(client, 'calls')).result).toBe(String(calls));
    // The used session outlived 200 unused ones although it was idle all along.
    expect((await s.raw.post({ jsonrpc: '2.0', id: 2, method: 'ping' }, idle.sessionId)).status).toBe(200);
    // The flood's sessions were closed, not their sandboxes (they had none), and no sandbox of the client stopped.
    expect(s.sp.sessions.list().map((x) => x.id)).toContain(first.session_id);
  });

  it('refuses an initialize with 429 and a JSON-RPC error when every session of the token has a request in flight', async () => {
    // A mount of its own, so the sessions of the other tests do not count here.
    const small = createMcpHttpMount(s.sp, { maxSessionsPerPrincipal: 3 });
    const http = await startHttpServer({
      sandpit: s.sp,
      port: 0,
      token: s.token,
      mounts: [small.route],
      panelDir: false,
    });
    const raw = new RawMcpHttp(http.url, s.token);
    const initialize = (id: string, name: string): Promise<McpHttpAnswer> =>
      raw.post({
        jsonrpc: '2.0',
        id,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name, version: '0' } },
      });
    const streams: Array<{ close(): void }> = [];
    try {
      // Every session holds its GET stream open: a request in flight that eviction must not cut.
      for (let i = 0; i < 3; i += 1) {
        const { sessionId } = await raw.initialize(`streaming-${i}`);
        const stream = await raw.openStream(sessionId);
        expect(stream.status).toBe(200);
        streams.push(stream);
      }
      const refused = await initialize('init-4', 'one-too-many');
      expect(refused.status).toBe(429);
      expect(refused.retryAfter).toBe('1');
      expect(refused.messages[0]).toMatchObject({ id: 'init-4', error: { code: -32000 } });
      expect(refused.messages[0]?.error?.message).toContain('already has 3, the most it may hold');
      expect(small.sessionCount()).toBe(3);
      // One stream ends: that session is idle now, and the next initialize takes its place.
      streams.shift()?.close();
      const admitted = await pollUntil(
        async () => {
          const answer = await initialize('init-5', 'next');
          return answer.status === 200 ? answer : undefined;
        },
        15_000,
        'an initialize to be admitted once a stream closed',
        50,
      );
      expect(admitted.sessionId).toBeDefined();
      expect(small.sessionCount()).toBe(3);
    } finally {
      for (const stream of streams) stream.close();
      await http.close();
      await small.close();
    }
  });

  it('keeps the heap bounded: 2,000 initializes leave the cap of sessions and the heap near where it was', async () => {
    await flood(s, 50);
    const before = heapAfterGc();
    await flood(s, 2_000);
    const after = heapAfterGc();
    const grew = after - before;
    process.stderr.write(
      `[mcp-http-limits] heap before ${(before / MIB).toFixed(1)} MiB, after 2,000 initializes ${(after / MIB).toFixed(1)} MiB (${(grew / MIB).toFixed(1)} MiB), sessions ${s.mount.sessionCount()}\n`,
    );
    expect(s.mount.sessionCount()).toBe(CAP);
    // Kept, each session costs ~70 KiB: 2,000 of them would be ~140 MiB. The cap's 8 are well under 1 MiB.
    expect(grew).toBeLessThan(24 * MIB);
  });
});

describe('MCP over HTTP: sessions nobody uses expire', () => {
  // Sandboxes stop after 8 s idle (the session manager sweeps every 2 s); MCP sessions expire much sooner.
  const SANDBOX_IDLE_MS = 8_000;
  let s: Served;

  beforeAll(async () => {
    s = await serve({ unusedTimeoutMs: 1_000, idleTimeoutMs: 2_000 }, SANDBOX_IDLE_MS);
  });
  afterAll(async () => {
    await s?.cleanup();
  });

  it('closes an unused session soon and a used one after its idle time; the sandbox of an expired one stops only after its own idle time, while a DELETE stops it at once', async () => {
    // A client connected with the SDK holds its GET stream: it is never expired while connected.
    const held = await s.connect('held-open');
    const heldRun = await execute(held.client, 'x = 1');

    // A session that ran code and went quiet (POSTs only, no stream).
    const quiet = await s.raw.initialize('quiet');
    const ran = await s.raw.call(quiet.sessionId, 1, 'execute_code', { code: '6 * 7' });
    const quietSandbox = (ran.messages[0]?.result?.structuredContent as { session_id: string }).session_id;
    expect(quietSandbox).toMatch(/^ses-/);
    expect(s.sp.sessions.session(quietSandbox).identity.owner).toBe(mcpPrincipal(quiet.sessionId));
    const lastUsed = s.sp.sessions.session(quietSandbox).lastUsedAt.getTime();

    // One never used at all.
    await s.raw.initialize('never-used', false);
    expect(s.mount.sessionCount()).toBe(3);

    await pollUntil(() => (s.mount.sessionCount() === 1 ? true : undefined), 30_000, 'the idle sessions to expire', 25);
    const gone = await s.raw.post({ jsonrpc: '2.0', id: 2, method: 'ping' }, quiet.sessionId);
    expect(gone.status).toBe(404);
    expect(gone.messages[0]?.error?.message).toContain('Session not found');
    expect(s.sp.sessions.list().map((x) => x.id)).toContain(quietSandbox);

    // The held session still works after longer than the idle timeout, then ends with a DELETE.
    expect((await execute(held.client, 'x + 1')).result).toBe('2');
    const removed: string[] = [];
    const off = s.sp.bus.on('session.removed', (e) => removed.push(e.sessionId));
    let removedAt = 0;
    const offTimed = s.sp.bus.on('session.removed', (e) => {
      if (e.sessionId === quietSandbox) removedAt = Date.now();
    });
    await held.transport.terminateSession();
    expect(removed).toContain(heldRun.session_id);
    expect(s.sp.sessions.list().map((x) => x.id)).not.toContain(heldRun.session_id);
    // Any stop of the expired session's sandbox would have begun long before the DELETE: it is still there.
    expect(s.sp.sessions.list().map((x) => x.id)).toContain(quietSandbox);

    await pollUntil(
      () => (removedAt > 0 ? true : undefined),
      60_000,
      'the expired session’s sandbox to stop when idle',
      100,
    );
    off();
    offTimed();
    expect(removedAt - lastUsed).toBeGreaterThanOrEqual(SANDBOX_IDLE_MS);
    expect(s.mount.sessionCount()).toBe(0);
  });
});
