import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createSandpit } from '../app';
import type { Sandpit } from '../app';
import { defaultConfig } from '../config';
import { silentLogger } from '../log';
import { createMcpServer } from './create-mcp-server';
import type { SessionSummary } from './session-output';

/** An SDK client linked in-process to the core's MCP server, calling as an MCP session of its own. */
async function connect(sp: Sandpit, principal: string): Promise<{ call: (name: string, args?: Record<string, unknown>) => Promise<CallToolResult>; close: () => Promise<void> }> {
  const mcp = createMcpServer({ sandpit: sp, context: () => ({ transport: 'mcp-stdio', client: 'kept-test', principal }) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcp.server.connect(serverSide);
  const client = new Client({ name: 'kept-test', version: '1.0.0' });
  await client.connect(clientSide);
  return {
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: async () => {
      await client.close();
      await mcp.close();
    },
  };
}

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

async function startCore(home: string): Promise<Sandpit> {
  return createSandpit(defaultConfig({ home, poolSize: 0, egressProxy: false, images: { ...inject('images') } }), { logger: silentLogger });
}

describe('kept sessions over MCP', () => {
  let home: string;
  let sp: Sandpit | undefined;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'sandpit-mcp-kept-'));
  });
  afterAll(async () => {
    await sp?.dispose();
    await rm(home, { recursive: true, force: true });
  });

  it('create_session {keep: true}; after a restart list_sessions says paused and kept; execute_code resumes it saying so; stop_session ends it', async () => {
    sp = await startCore(home);
    const before = await connect(sp, 'mcp:first');
    const created = await before.call('create_session', { keep: true, name: 'long job' });
    const session = created.structuredContent as SessionSummary;
    expect([session.kept, session.status]).toEqual([true, 'ready']);
    await before.call('execute_code', { session_id: session.session_id, code: "open('/workspace/r.txt', 'w').write('ok')" });
    await before.close();
    await sp.dispose();

    sp = await startCore(home);
    // Another MCP session (the first one ended with the old core): the kept session is shared now.
    const after = await connect(sp, 'mcp:second');
    const listed = await after.call('list_sessions');
    const sessions = (listed.structuredContent as { sessions: SessionSummary[] }).sessions;
    expect(sessions.map((s) => [s.session_id, s.status, s.kept, s.shared, s.name])).toEqual([[session.session_id, 'paused', true, true, 'long job']]);
    expect(text(listed)).toContain('paused (files and packages kept; the next call resumes it without its variables)');

    const resumed = await after.call('execute_code', { session_id: session.session_id, code: "print(open('/workspace/r.txt').read())" });
    expect(resumed.isError ?? false, text(resumed)).toBe(false);
    expect(text(resumed)).toContain('ok');
    expect(text(resumed)).toContain('This session was resumed after Sandpit restarted: files and installed packages are here, variables from earlier runs are not');

    const stopped = await after.call('stop_session', { session_id: session.session_id });
    expect(stopped.isError ?? false, text(stopped)).toBe(false);
    expect(((await after.call('list_sessions')).structuredContent as { sessions: SessionSummary[] }).sessions).toEqual([]);
    await after.close();
  });
});
