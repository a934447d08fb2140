import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EventPayload } from '../../shared/api/contract';
import type { Approval } from '../../shared/domain/approval';
import type { ApprovalPolicy } from '../../shared/domain/approval';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { call } from '../api/dispatcher';
import type { CallContext } from '../api/api-types';
import { createMcpServer } from '../mcp/create-mcp-server';
import { pollUntil } from '../util/with-timeout';

const PANEL: CallContext = { transport: 'ipc' };
const CLIENT = 'approvals-test';
const PRINCIPAL = 'approvals-principal';
const WAITING = 'waiting for approval in the Sandpit panel';

function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

describe('approvals with a real MCP client and a real engine', () => {
  let sp: TestSandpit;
  let client: Client;
  let closeServer: () => Promise<void>;
  let requested: Approval[];
  let resolved: Array<EventPayload<'approval.resolved'>>;
  let started: Array<EventPayload<'execution.started'>>;
  const offs: Array<() => void> = [];

  const setPolicy = async (policy: ApprovalPolicy, timeoutSeconds = 120): Promise<void> => {
    await call(sp.api, 'settings.update', { patch: { approvals: { perClient: { [CLIENT]: policy }, timeoutSeconds } } }, PANEL);
  };
  const nextRequest = (): Promise<Approval> => pollUntil(() => requested.shift(), 15_000, 'an approval request');
  const respond = (id: string, decision: 'approve' | 'deny'): Promise<{ ok: boolean }> => call(sp.api, 'approvals.respond', { id, decision }, PANEL);
  const execute = (code: string, progress?: Progress[]): Promise<CallToolResult> =>
    client.callTool({ name: 'execute_code', arguments: { code } }, undefined, {
      ...(progress ? { onprogress: (p: Progress) => progress.push(p) } : {}),
      timeout: 60_000,
    }) as Promise<CallToolResult>;

  beforeAll(async () => {
    sp = await startTestSandpit();
    const mcp = createMcpServer({ sandpit: sp, context: () => ({ transport: 'mcp-stdio', client: CLIENT, principal: PRINCIPAL }) });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcp.server.connect(serverSide);
    client = new Client({ name: CLIENT, version: '1.0.0' });
    await client.connect(clientSide);
    closeServer = () => mcp.close();
    offs.push(
      sp.bus.on('approval.requested', (a) => requested.push(a)),
      sp.bus.on('approval.resolved', (r) => resolved.push(r)),
      sp.bus.on('execution.started', (e) => started.push(e)),
    );
  });
  beforeEach(() => {
    requested = [];
    resolved = [];
    started = [];
  });
  afterAll(async () => {
    for (const off of offs) off();
    await client?.close();
    await closeServer?.();
    await sp?.cleanup();
  });

  it('under ask-every holds the call, shows the code, sends progress while waiting, and runs it once approved', async () => {
    await setPolicy('ask-every');
    const progress: Progress[] = [];
    const pending = execute('x = 41\nx + 1', progress);
    const approval = await nextRequest();
    expect(approval).toMatchObject({ kind: 'execute', client: CLIENT, transport: 'mcp-stdio', code: 'x = 41\nx + 1' });
    expect((await call(sp.api, 'approvals.list', {}, PANEL)).pending.map((a) => a.id)).toEqual([approval.id]);
    await pollUntil(() => (progress.some((p) => p.message === WAITING) ? true : undefined), 10_000, 'a progress notification while waiting');
    expect(started).toEqual([]);

    expect(await respond(approval.id, 'approve')).toEqual({ ok: true });
    const result = await pending;
    expect(result.isError ?? false, textOf(result)).toBe(false);
    expect(result.structuredContent).toMatchObject({ status: 'ok', result: '42' });
    expect(resolved).toEqual([{ id: approval.id, decision: 'approved' }]);
    expect((await call(sp.api, 'approvals.list', {}, PANEL)).pending).toEqual([]);
  });

  it('refuses a denied call with a clear isError result, and nothing runs', async () => {
    await setPolicy('ask-every');
    const pending = execute('x = 1000\nprint("must not run")');
    const approval = await nextRequest();
    await respond(approval.id, 'deny');
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('DENIED: The person using Sandpit denied this run.');
    expect(started).toEqual([]);
    expect(resolved).toEqual([{ id: approval.id, decision: 'denied' }]);

    // The session's state is untouched (the panel is never asked).
    const [session] = sp.sessions.listFor(PRINCIPAL);
    const x = await call(sp.api, 'sessions.execute', { sessionId: session!.id, code: 'x' }, PANEL);
    expect(x.result).toBe('41');
    // The refusal is in the audit log.
    const rows = await call(sp.api, 'audit.list', { filters: { client: CLIENT, status: 'denied' } }, PANEL);
    expect(rows.rows.map((r) => r.code)).toContain('x = 1000\nprint("must not run")');
  });

  it('counts no answer in time as denied', async () => {
    await setPolicy('ask-every', 10);
    const started0 = Date.now();
    const pending = execute('x = -1');
    const approval = await nextRequest();
    expect(Date.parse(approval.expiresAt) - Date.parse(approval.createdAt)).toBe(10_000);
    const result = await pending;
    expect(Date.now() - started0).toBeGreaterThanOrEqual(9_000);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('DENIED: No one answered within 10 s, so the run was not allowed.');
    expect(resolved).toEqual([{ id: approval.id, decision: 'expired' }]);
    expect(started).toEqual([]);
    expect(await respond(approval.id, 'approve')).toEqual({ ok: false });
  });

  it('under ask-new runs in an existing session freely but asks before an install; free asks nothing', async () => {
    await setPolicy('ask-new');
    const free = await execute('x + 1');
    expect(free.structuredContent).toMatchObject({ status: 'ok', result: '42' });
    expect(requested).toEqual([]);

    const install = client.callTool({ name: 'install_packages', arguments: { packages: ['no-such-package-sandpit-test'] } }) as Promise<CallToolResult>;
    const approval = await nextRequest();
    expect(approval).toMatchObject({ kind: 'install', code: 'no-such-package-sandpit-test' });
    await respond(approval.id, 'deny');
    expect(textOf(await install)).toMatch(/^DENIED: /);

    await setPolicy('free');
    expect((await execute('x')).structuredContent).toMatchObject({ result: '41' });
    expect(requested).toEqual([]);
  });
});
