import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { startHttpServer } from '../http/http-server';
import type { RunningHttpServer } from '../http/http-server';
import { generateToken } from '../connect/token';
import { createMcpHttpMount } from './http-mount';
import type { McpHttpMount } from './http-mount';

interface HttpClient {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

describe('MCP over Streamable HTTP on the real server', () => {
  let sp: TestSandpit;
  let mount: McpHttpMount;
  let http: RunningHttpServer;
  let token: string;
  const clients: HttpClient[] = [];

  async function connect(name: string): Promise<HttpClient> {
    const transport = new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    const client = new Client({ name, version: '1.0.0' });
    await client.connect(transport);
    const connected = { client, transport };
    clients.push(connected);
    return connected;
  }

  async function run(
    client: Client,
    code: string,
    onprogress?: (p: Progress) => void,
  ): Promise<{ session_id: string; status: string; result?: string; stdout: string }> {
    const result = (await client.callTool(
      { name: 'execute_code', arguments: { code } },
      undefined,
      onprogress ? { onprogress } : undefined,
    )) as CallToolResult;
    expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
    return result.structuredContent as { session_id: string; status: string; result?: string; stdout: string };
  }

  function post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(`${http.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
        ...headers,
      },
      body: JSON.stringify(body),
    });
  }

  beforeAll(async () => {
    sp = await startTestSandpit();
    token = generateToken();
    mount = createMcpHttpMount(sp);
    http = await startHttpServer({ sandpit: sp, port: 0, token, mounts: [mount.route] });
  });
  afterAll(async () => {
    for (const c of clients) await c.client.close().catch(() => undefined);
    await http?.close();
    await mount?.close();
    await sp?.cleanup();
  });

  it('runs code, keeping state in the default session, with progress over the response stream', async () => {
    const { client } = await connect('http-a');
    const first = await run(client, 'x = 20');
    const seen: Progress[] = [];
    const second = await run(
      client,
      'import time\nfor i in range(3):\n    print("step", i, flush=True)\n    time.sleep(1)\nx * 2 + 2',
      (p) => seen.push(p),
    );
    expect(second).toMatchObject({ status: 'ok', result: '42', session_id: first.session_id });
    expect(seen.length).toBeGreaterThanOrEqual(1);
    expect(seen.some((p) => p.message?.startsWith('step'))).toBe(true);
    expect(sp.sessions.session(first.session_id).info().client).toBe('http-a');
  });

  it('gives a second client its own default session, and DELETE of an MCP session stops its sandboxes', async () => {
    const a = await connect('http-del-a');
    const b = await connect('http-del-b');
    const inA = await run(a.client, 'who = "a"');
    const inB = await run(b.client, 'who');
    expect(inB.session_id).not.toBe(inA.session_id);
    expect(inB.status).toBe('error');
    const countBefore = mount.sessionCount();

    await a.transport.terminateSession();
    const ids = sp.sessions.list().map((s) => s.id);
    expect(ids).not.toContain(inA.session_id);
    expect(ids).toContain(inB.session_id);
    expect(mount.sessionCount()).toBe(countBefore - 1);
    expect((await run(b.client, 'who = "b"\nwho')).result).toBe("'b'");
  });

  it('answers an unknown session id with 404, a missing one with 400, and no token with 401', async () => {
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const unknown = await post(ping, {
      'mcp-session-id': '00000000-0000-4000-8000-000000000000',
      'mcp-protocol-version': '2025-06-18',
    });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 } });
    const missing = await post(ping);
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    const anonymous = await post(ping, { authorization: '' });
    expect(anonymous.status).toBe(401);
  });
});
