// Environments and sessions across surfaces, as an assistant meets them over MCP: what the panel made is
// usable by id, an environment that cannot build says why, names and languages are checked. Real engine.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../api/dispatcher';
import type { CallContext } from '../api/api-types';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { createMcpServer } from './create-mcp-server';

const PANEL: CallContext = { transport: 'ipc', client: 'panel' };

async function connect(sp: TestSandpit, principal: string, name: string): Promise<{ client: Client; close(): Promise<void> }> {
  const mcp = createMcpServer({ sandpit: sp, context: () => ({ transport: 'mcp-stdio', client: name, principal }) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcp.server.connect(serverSide);
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(clientSide);
  return { client, close: async () => (await client.close(), await mcp.close()) };
}

async function tool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as CallToolResult;
}

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

describe('environments and sessions across surfaces, over MCP', () => {
  let sp: TestSandpit;
  let a: Awaited<ReturnType<typeof connect>>;
  let b: Awaited<ReturnType<typeof connect>>;

  beforeAll(async () => {
    // Builds here can reach no package index: pip's index is this machine's discard port, inside a build
    // container on no network.
    sp = await startTestSandpit({ pipIndexUrl: 'http://127.0.0.1:9/simple', installNetwork: 'none' });
    a = await connect(sp, 'principal-a', 'assistant-a');
    b = await connect(sp, 'principal-b', 'assistant-b');
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await sp?.cleanup();
  });

  it("lets every assistant use a session the person made in the panel, by its id; an assistant's own stays its own", async () => {
    const mine = await call(sp.api, 'sessions.create', { name: 'made by hand' }, PANEL);
    expect(mine).toMatchObject({ shared: true, name: 'made by hand', environment: 'python', environmentName: 'Python' });
    await call(sp.api, 'sessions.execute', { sessionId: mine.id, code: "note = 'from the panel'" }, PANEL);

    const listed = (await tool(a.client, 'list_sessions')).structuredContent as { sessions: Array<{ session_id: string; shared: boolean; name: string }> };
    expect(listed.sessions).toContainEqual(expect.objectContaining({ session_id: mine.id, shared: true, name: 'made by hand' }));
    const used = await tool(a.client, 'execute_code', { session_id: mine.id, code: 'note' });
    expect((used.structuredContent as { result?: string }).result).toBe("'from the panel'");

    const own = (await tool(a.client, 'create_session', {})).structuredContent as { session_id: string; shared: boolean };
    expect(own.shared).toBe(false);
    const other = await tool(b.client, 'execute_code', { session_id: own.session_id, code: '1' });
    expect(other.isError).toBe(true);
    expect(text(other)).toContain('SESSION_NOT_FOUND');
    // The panel sees both, and names who made the assistant's.
    const all = await call(sp.api, 'sessions.list', {}, PANEL);
    expect(all.sessions.find((s) => s.id === own.session_id)).toMatchObject({ client: 'assistant-a', shared: false, environmentName: 'Python' });
  });

  it('answers create_session of an environment that cannot build with isError saying why and what to do, and lists it as failed', async () => {
    const env = await call(sp.api, 'environments.create', { name: 'Needs the internet', language: 'python', packages: { pip: ['sandpit_demo_a'] } }, PANEL);
    const failed = await tool(a.client, 'create_session', { environment: 'needs the internet' });
    expect(failed.isError).toBe(true);
    expect(text(failed)).toMatch(/^INVALID_INPUT: The environment "Needs the internet" could not be built: Sandpit could not reach the package index \(127\.0\.0\.1:9\): this computer seems to be offline.*— or use another environment\./s);
    const { environments } = (await tool(a.client, 'list_environments')).structuredContent as {
      environments: Array<{ id: string; status: string; status_message: string }>;
    };
    expect(environments.find((e) => e.id === env.id)).toMatchObject({ status: 'failed', status_message: expect.stringMatching(/^The last build failed/) as unknown });
    // No session was left behind by the failed call.
    expect((await call(sp.api, 'sessions.list', {}, PANEL)).sessions.filter((s) => s.environment === env.id)).toEqual([]);
  });

  it('starts a session in the language of its environment, and refuses a language that does not fit', async () => {
    const js = (await tool(a.client, 'create_session', { environment: 'Node.js' })).structuredContent as { session_id: string; language: string };
    expect(js.language).toBe('javascript');
    expect((await tool(a.client, 'execute_code', { session_id: js.session_id, code: '[1, 2, 3].map((x) => x * 2)' })).structuredContent).toMatchObject({ result: '[ 2, 4, 6 ]' });
    const mismatch = await tool(a.client, 'create_session', { environment: 'node', language: 'python' });
    expect(mismatch.isError).toBe(true);
    expect(text(mismatch)).toContain('is for JavaScript, not Python');
  });
});
