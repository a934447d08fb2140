import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../api/dispatcher';
import type { CallContext } from '../api/api-types';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { createMcpServer } from './create-mcp-server';

const PANEL: CallContext = { transport: 'internal' };

interface Connected {
  client: Client;
  close(): Promise<void>;
}

/** A real SDK client linked in-process to a Sandpit MCP server that calls as `principal`. */
async function connect(sp: TestSandpit, principal: string, name: string): Promise<Connected> {
  const mcp = createMcpServer({ sandpit: sp, context: () => ({ transport: 'mcp-stdio', client: name, principal }) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcp.server.connect(serverSide);
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(clientSide);
  return {
    client,
    close: async () => {
      await client.close();
      await mcp.close();
    },
  };
}

async function tool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as CallToolResult;
}

function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

function structured<T>(result: CallToolResult): T {
  expect(result.isError ?? false, textOf(result)).toBe(false);
  return result.structuredContent as T;
}

interface Restored {
  session: { session_id: string };
  snapshot: { snapshot_id: string; files: number };
  files: number;
  replay?: { total: number; ran: number; complete: boolean; failed_run?: number; error?: string; message: string };
}

describe('snapshot, fork and restore tools through a real MCP client', () => {
  let sp: TestSandpit;
  let a: Connected;

  beforeAll(async () => {
    sp = await startTestSandpit();
    a = await connect(sp, 'principal-snap', 'snap-client');
  });
  afterAll(async () => {
    await a?.close();
    await sp?.cleanup();
  });

  it('forks the default session, tries two approaches, keeps the one that worked', async () => {
    const first = structured<{ session_id: string }>(await tool(a.client, 'execute_code', { code: "rows = [3, 1, 2]\nopen('rows.txt', 'w').write('3 1 2')" }));
    const fork = structured<Restored>(await tool(a.client, 'fork_session', { replay: true }));
    expect(fork.replay).toMatchObject({ total: 1, ran: 1, complete: true });
    const forkId = fork.session.session_id;
    expect(forkId).not.toBe(first.session_id);

    // Approach A in the original fails; approach B in the fork works.
    const failed = await tool(a.client, 'execute_code', { session_id: first.session_id, code: 'rows.sort(key=lambda r: r.missing)' });
    expect(structured<{ status: string }>(failed).status).toBe('error');
    const worked = structured<{ result: string }>(await tool(a.client, 'execute_code', { session_id: forkId, code: "rows.sort()\nopen('sorted.txt', 'w').write(str(rows))\nrows" }));
    expect(worked.result).toBe('[1, 2, 3]');
    structured(await tool(a.client, 'stop_session', { session_id: first.session_id }));

    const files = structured<{ entries: Array<{ path: string }> }>(await tool(a.client, 'list_files', { session_id: forkId }));
    expect(files.entries.map((e) => e.path).sort()).toEqual(['rows.txt', 'sorted.txt']);
    structured(await tool(a.client, 'stop_session', { session_id: forkId }));
  });

  it('snapshots, lists, restores with a replay that stops at a failing run, and deletes', async () => {
    const s = structured<{ session_id: string }>(await tool(a.client, 'create_session', { name: 'to snapshot' }));
    const sid = s.session_id;
    structured(await tool(a.client, 'write_file', { session_id: sid, path: 'in.txt', content: '5' }));
    structured(await tool(a.client, 'execute_code', { session_id: sid, code: 'base = 10' }));
    structured(await tool(a.client, 'execute_code', { session_id: sid, code: "n = int(open('in.txt').read())" }));
    structured(await tool(a.client, 'run_command', { session_id: sid, command: 'rm in.txt && echo x > out.txt' }));

    const snap = structured<{ snapshot_id: string; files: number; runs: number; shared: boolean }>(
      await tool(a.client, 'snapshot_session', { session_id: sid, name: 'after rm' }),
    );
    // Files written by write_file and changed by run_command are in the snapshot; only runs are replayed.
    expect(snap).toMatchObject({ files: 1, runs: 2, shared: false });
    const listed = structured<{ snapshots: Array<{ snapshot_id: string; name: string }> }>(await tool(a.client, 'list_snapshots'));
    expect(listed.snapshots.map((x) => x.name)).toContain('after rm');

    const restoredResult = await tool(a.client, 'restore_snapshot', { snapshot: 'after rm', replay: true });
    const restored = structured<Restored>(restoredResult);
    expect(restored.replay).toMatchObject({ total: 2, ran: 1, complete: false, failed_run: 2 });
    expect(restored.files).toBe(1);
    expect(restored.replay?.error).toMatch(/^FileNotFoundError/);
    expect(textOf(restoredResult)).toMatch(/Replay: Run 2 of 2 failed \(FileNotFoundError: .*\); the replay stopped there/);

    const deleted = structured<{ deleted: boolean }>(await tool(a.client, 'delete_snapshot', { snapshot_id: snap.snapshot_id }));
    expect(deleted.deleted).toBe(true);
    const gone = await tool(a.client, 'restore_snapshot', { snapshot: snap.snapshot_id });
    expect(gone.isError).toBe(true);
    expect(textOf(gone)).toMatch(/^NOT_FOUND: No snapshot/);
    for (const id of [sid, restored.session.session_id]) structured(await tool(a.client, 'stop_session', { session_id: id }));
  });

  it('asks the person like create_session for a fork, and for each replayed run under "ask for every execution"', async () => {
    const s = structured<{ session_id: string }>(await tool(a.client, 'create_session', {}));
    structured(await tool(a.client, 'execute_code', { session_id: s.session_id, code: 'v = 1' }));
    structured(await tool(a.client, 'execute_code', { session_id: s.session_id, code: 'v += 1' }));
    await call(sp.api, 'settings.update', { patch: { approvals: { perClient: { 'snap-client': 'ask-every' }, timeoutSeconds: 60 } } }, PANEL);
    const asked: Array<{ kind: string; detail: string; code?: string }> = [];
    const stop = sp.bus.on('approval.requested', (request) => {
      asked.push({ kind: request.kind, detail: request.detail, ...(request.code === undefined ? {} : { code: request.code }) });
      void call(sp.api, 'approvals.respond', { id: request.id, decision: 'approve' }, PANEL);
    });
    try {
      const fork = structured<Restored>(await tool(a.client, 'fork_session', { session_id: s.session_id, replay: true }));
      expect(fork.replay).toMatchObject({ total: 2, ran: 2, complete: true });
      expect(asked.map((x) => x.kind)).toEqual(['create-session', 'execute', 'execute']);
      expect(asked[0]?.detail).toMatch(/^Start a copy of the session /);
      expect(asked.slice(1).map((x) => x.code)).toEqual(['v = 1', 'v += 1']);
      // Another client's session is refused as missing before the person is asked anything.
      const theirs = await call(sp.api, 'sessions.create', {}, { transport: 'mcp-stdio', client: 'other', principal: 'principal-other' });
      const refused = await tool(a.client, 'fork_session', { session_id: theirs.id });
      expect(textOf(refused)).toMatch(/^SESSION_NOT_FOUND: /);
      expect(asked).toHaveLength(3);
      await call(sp.api, 'sessions.stop', { sessionId: theirs.id }, PANEL);
      // A denied run stops the replay, and says so.
      stop();
      const deny = sp.bus.on('approval.requested', (request) => {
        void call(sp.api, 'approvals.respond', { id: request.id, decision: request.kind === 'create-session' ? 'approve' : 'deny' }, PANEL);
      });
      try {
        const denied = structured<Restored>(await tool(a.client, 'fork_session', { session_id: s.session_id, replay: true }));
        expect(denied.replay).toMatchObject({ total: 2, ran: 0, complete: false, failed_run: 1 });
        expect(denied.replay?.error).toMatch(/^DENIED: /);
        structured(await tool(a.client, 'stop_session', { session_id: denied.session.session_id }));
      } finally {
        deny();
      }
      structured(await tool(a.client, 'stop_session', { session_id: fork.session.session_id }));
    } finally {
      stop();
      await call(sp.api, 'settings.update', { patch: { approvals: { perClient: {} } } }, PANEL);
    }
    structured(await tool(a.client, 'stop_session', { session_id: s.session_id }));
  });
});
