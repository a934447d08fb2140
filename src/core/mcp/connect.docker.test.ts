import { readFile } from 'node:fs/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHttp } from '../http/serve-http';
import type { ServedHttp } from '../http/serve-http';
import type { EventPayload } from '../../shared/api/contract';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { call } from '../api/dispatcher';
import type { CallContext } from '../api/api-types';
import { pollUntil } from '../util/with-timeout';
import { createMcpHttpMount } from './http-mount';
import type { McpHttpMount } from './http-mount';

const PANEL: CallContext = { transport: 'ipc' };

describe('connect: endpoints, connected clients and token rotation on the real HTTP server', () => {
  let sp: TestSandpit;
  let mount: McpHttpMount;
  let served: ServedHttp;
  const clients: Client[] = [];

  async function connect(name: string, token: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    const transport = new StreamableHTTPClientTransport(new URL(`${served.http.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    const client = new Client({ name, version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return { client, transport };
  }

  /** A REST call with the clients' token (what assistants hold). */
  function restCall(token: string): Promise<Response> {
    return fetch(`${served.http.url}/list-envs`, { headers: { authorization: `Bearer ${token}` } });
  }

  /** A call of the web panel's API: it opens only to the panel's own token. */
  function apiCall(token: string, method: string, body: unknown = {}): Promise<Response> {
    return fetch(`${served.http.url}/api/${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
  }

  beforeAll(async () => {
    sp = await startTestSandpit();
    mount = createMcpHttpMount(sp);
    served = await serveHttp(sp, 0, [mount.route]);
  });
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await served?.close();
    await mount?.close();
    await sp?.cleanup();
  });

  it('shows where it serves, and the MCP clients connected now by name', async () => {
    const changes: Array<EventPayload<'clients.changed'>> = [];
    const off = sp.bus.on('clients.changed', (c) => changes.push(c));
    const { transport } = await connect('connect-test-client', served.token);
    const info = await pollUntil(async () => {
      const now = await call(sp.api, 'connect.info', {}, PANEL);
      return now.clients.some((c) => c.name === 'connect-test-client') ? now : undefined;
    }, 10_000, 'the client to show as connected');
    expect(info).toMatchObject({ serving: true, mcpUrl: `${served.http.url}/mcp`, panelUrl: `${served.http.url}/`, tokenFile: served.tokenFile });
    expect(info.clients.map(({ connectedAt: _at, ...rest }) => rest)).toEqual([{ name: 'connect-test-client', transport: 'mcp-http', mcpSessionId: transport.sessionId }]);
    expect(JSON.parse(info.configs.cursor.http!)).toMatchObject({ mcpServers: { sandpit: { url: `${served.http.url}/mcp` } } });
    expect(changes.at(-1)?.clients.map((c) => c.name)).toEqual(['connect-test-client']);

    // The web panel (its own token, /api) sees the same; a client that ends its MCP session is gone.
    const viaApi = (await (await apiCall(served.panelToken, 'connect.info')).json()) as { value: { clients: Array<{ name: string }> } };
    expect(viaApi.value.clients.map((c) => c.name)).toEqual(['connect-test-client']);
    await transport.terminateSession();
    await pollUntil(async () => ((await call(sp.api, 'connect.info', {}, PANEL)).clients.length === 0 ? true : undefined), 10_000, 'the client to leave');
    off();
    expect(changes.at(-1)?.clients).toEqual([]);
  });

  it('rotates the token: the old one gets 401 at once, the new one works, the token file holds it', async () => {
    const old = served.token;
    expect((await restCall(old)).status).toBe(200);
    // The clients' token never opens the panel's API: it cannot rotate tokens there either.
    expect((await apiCall(old, 'connect.rotateToken')).status).toBe(403);
    expect((await call(sp.api, 'connect.revealToken', {}, PANEL)).token).toBe(old);
    await expect(call(sp.api, 'connect.rotateToken', {}, { transport: 'mcp-http', client: 'x', principal: 'mcp:1' })).rejects.toMatchObject({ code: 'DENIED' });

    const rotated = await (await apiCall(served.panelToken, 'connect.rotateToken')).json() as { ok: boolean; value: { token: string } };
    expect(rotated.ok).toBe(true);
    const fresh = rotated.value.token;
    expect(fresh).not.toBe(old);
    expect((await readFile(served.tokenFile, 'utf8')).trim()).toBe(fresh);

    const refused = await restCall(old);
    expect(refused.status).toBe(401);
    expect((await restCall(fresh)).status).toBe(200);
    // The panel keeps its own token across a rotation of the clients' token.
    expect((await apiCall(served.panelToken, 'sessions.list')).status).toBe(200);
    expect((await call(sp.api, 'connect.revealToken', {}, PANEL)).token).toBe(fresh);

    // MCP too: a new client with the new token connects; one with the old token is refused.
    await expect(connect('old-token-client', old)).rejects.toThrow();
    const { client } = await connect('new-token-client', fresh);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });
});
