// "Approve for this session" across a restart of Sandpit (issue 23): a grant is for a session, and a kept session
// outlives the restart, so its grant does — for the same assistant (its name and token), shown in the panel and taken
// back there; a session that is not kept ends with Sandpit and its grant with it. Real SDK clients over Streamable HTTP.
import { rm } from 'node:fs/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../shared/domain/audit';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { call } from '../api/dispatcher';
import type { CallContext } from '../api/api-types';
import { generateToken } from '../connect/token';
import { startHttpServer } from '../http/http-server';
import type { RunningHttpServer } from '../http/http-server';
import { createMcpHttpMount } from './http-mount';
import type { McpHttpMount } from './http-mount';

const PANEL: CallContext = { transport: 'ipc' };

interface Served { sp: TestSandpit; mount: McpHttpMount; http: RunningHttpServer }

async function serve(token: string, home?: string): Promise<Served> {
  const sp = await startTestSandpit(home === undefined ? {} : { home });
  const mount = createMcpHttpMount(sp);
  const http = await startHttpServer({ sandpit: sp, port: 0, token, mounts: [mount.route] });
  return { sp, mount, http };
}

async function stop(served: Served): Promise<void> {
  await served.http.close();
  await served.mount.close();
  await served.sp.dispose();
}

/** A client with form elicitation whose person gives `answers` in order (none left: "decline", which denies); counts the questions. */
async function chatClient(served: Served, token: string, name: string, answers: string[] = []): Promise<{ client: Client; answers: string[]; asked: () => number }> {
  const client = new Client({ name, version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  let asked = 0;
  client.setRequestHandler(ElicitRequestSchema, (): ElicitResult => {
    asked += 1;
    const decision = answers.shift();
    return decision === undefined ? { action: 'decline' } : { action: 'accept', content: { decision } };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.http.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return { client, answers, asked: () => asked };
}

const run = async (client: Client, args: Record<string, unknown>): Promise<CallToolResult> =>
  (await client.callTool({ name: 'execute_code', arguments: args }, undefined, { timeout: 90_000 })) as CallToolResult;

async function lastRow(sp: TestSandpit): Promise<AuditEntry> {
  const page = await call(sp.api, 'audit.list', { limit: 1 }, PANEL);
  return call(sp.api, 'audit.get', { id: page.rows[0]!.id }, PANEL);
}

describe('"Approve for this session" across a restart of Sandpit', () => {
  const token = generateToken();
  let home: string | undefined;
  const toClose: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const close of toClose.reverse()) await close().catch(() => undefined);
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('a kept session\'s grant holds again for the same assistant, is shown in the panel and taken back there; a session that was not kept takes its grant with it', async () => {
    const first = await serve(token);
    home = first.sp.config.home;
    await call(first.sp.api, 'settings.update', { patch: { approvals: { perClient: { 'grant-alice': 'free', 'grant-mallory': 'ask-every' }, timeoutSeconds: 30, askInChat: true } } }, PANEL);
    const alice = await chatClient(first, token, 'grant-alice', ['approve-session', 'approve-session']);
    const kept = (await alice.client.callTool({ name: 'create_session', arguments: { keep: true } }, undefined, { timeout: 90_000 })) as CallToolResult;
    const keptId = (kept.structuredContent as { session_id: string }).session_id;
    const plainId = ((await run(alice.client, { code: '1' })).structuredContent as { session_id: string }).session_id;
    await call(first.sp.api, 'settings.update', { patch: { approvals: { perClient: { 'grant-alice': 'ask-every', 'grant-mallory': 'ask-every' } } } }, PANEL);
    expect((await run(alice.client, { session_id: keptId, code: '2' })).isError ?? false).toBe(false);
    expect((await run(alice.client, { session_id: plainId, code: '3' })).isError ?? false).toBe(false);
    expect(alice.asked()).toBe(2);
    await alice.client.close();
    await stop(first);

    const second = await serve(token, home);
    toClose.push(() => stop(second));
    // The panel sees the kept session's grant again; the other session is gone, and so is its grant.
    await expect.poll(async () => (await call(second.sp.api, 'approvals.sessionGrants', { sessionId: keptId }, PANEL)).grants.map((g) => g.client), { timeout: 30_000 }).toEqual(['grant-alice']);
    expect((await call(second.sp.api, 'approvals.sessionGrants', { sessionId: plainId }, PANEL)).grants).toEqual([]);

    // The same assistant (same name, same token), a new MCP session: not asked in the kept session.
    const again = await chatClient(second, token, 'grant-alice');
    toClose.push(() => again.client.close());
    expect((await run(again.client, { session_id: keptId, code: '40 + 2' })).structuredContent).toMatchObject({ status: 'ok', result: '42' });
    expect(again.asked()).toBe(0);
    expect(await lastRow(second.sp)).toMatchObject({ status: 'ok', sessionId: keptId, approval: 'Approved earlier in the chat by grant-alice, for the rest of this session' });

    // Another assistant with the same token is asked, in the same kept session.
    const mallory = await chatClient(second, token, 'grant-mallory', ['deny']);
    toClose.push(() => mallory.client.close());
    expect((await run(mallory.client, { session_id: keptId, code: '1' })).isError).toBe(true);
    expect(mallory.asked()).toBe(1);

    // Taken back in the panel: the same assistant is asked again.
    expect(await call(second.sp.api, 'approvals.revokeSessionGrant', { sessionId: keptId, client: 'grant-alice' }, PANEL)).toEqual({ revoked: 1 });
    again.answers.push('approve');
    expect((await run(again.client, { session_id: keptId, code: '7' })).structuredContent).toMatchObject({ status: 'ok', result: '7' });
    expect(again.asked()).toBe(1);
    expect(await lastRow(second.sp)).toMatchObject({ status: 'ok', approval: 'Approved in the chat by grant-alice' });
    await call(second.sp.api, 'sessions.stop', { sessionId: keptId }, PANEL);
  }, 300_000);
});
