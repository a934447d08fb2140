// Approvals in the chat (issue 23): real MCP SDK clients that declare form elicitation, over Streamable HTTP
// and over stdio (`sandpit mcp` bridging to the instance), against the real core and engine. The person
// answers in the chat (the client's elicitation handler) or in the panel (approvals.respond); whichever is first decides.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult, ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EventPayload } from '../../shared/api/contract';
import type { Approval, ApprovalPolicy } from '../../shared/domain/approval';
import type { AuditEntry } from '../../shared/domain/audit';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { call } from '../api/dispatcher';
import type { CallContext } from '../api/api-types';
import { serveHttp } from '../http/serve-http';
import type { ServedHttp } from '../http/serve-http';
import { pollUntil } from '../util/with-timeout';
import { createMcpHttpMount } from './http-mount';
import type { McpHttpMount } from './http-mount';

const PANEL: CallContext = { transport: 'ipc' };
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** What the chat's person does with a question: answer it, or leave it open (until it is withdrawn). */
type Answer = ElicitResult | 'leave-open';

interface ChatClient {
  client: Client;
  name: string;
  /** Every question the chat was asked, with whether it was withdrawn (its request cancelled). */
  asked: Array<{ request: ElicitRequest; withdrawn: boolean }>;
  /** The answers to give, in order; when none is left, questions are left open. */
  answers: Answer[];
}

function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

function chatClient(name: string): ChatClient {
  const client = new Client({ name, version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  const chat: ChatClient = { client, name, asked: [], answers: [] };
  client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
    const entry = { request, withdrawn: false };
    chat.asked.push(entry);
    const answer = chat.answers.shift() ?? 'leave-open';
    if (answer !== 'leave-open') return Promise.resolve(answer);
    return new Promise<ElicitResult>((_resolve, reject) => {
      extra.signal.addEventListener('abort', () => {
        entry.withdrawn = true;
        reject(new Error('withdrawn'));
      });
    });
  });
  return chat;
}

const accept = (decision: string): ElicitResult => ({ action: 'accept', content: { decision } });

describe('approvals in the chat, with real MCP clients and a real engine', () => {
  let sp: TestSandpit;
  let mount: McpHttpMount;
  let served: ServedHttp;
  let requested: Approval[];
  let resolved: Array<EventPayload<'approval.resolved'>>;
  let started: Array<EventPayload<'execution.started'>>;
  const closers: Array<() => Promise<void>> = [];
  const offs: Array<() => void> = [];

  const setApprovals = async (name: string, policy: ApprovalPolicy, more: { timeoutSeconds?: number; askInChat?: boolean } = {}): Promise<void> => {
    await call(sp.api, 'settings.update', { patch: { approvals: { perClient: { [name]: policy }, timeoutSeconds: more.timeoutSeconds ?? 120, askInChat: more.askInChat ?? true } } }, PANEL);
  };
  const nextRequest = (): Promise<Approval> => pollUntil(() => requested.shift(), 15_000, 'an approval request');
  const execute = (chat: ChatClient, code: string): Promise<CallToolResult> =>
    chat.client.callTool({ name: 'execute_code', arguments: { code } }, undefined, { timeout: 90_000 }) as Promise<CallToolResult>;
  const lastAuditRow = async (): Promise<AuditEntry> => {
    const page = await call(sp.api, 'audit.list', { limit: 1 }, PANEL);
    return call(sp.api, 'audit.get', { id: page.rows[0]!.id }, PANEL);
  };

  async function httpClient(name: string): Promise<ChatClient> {
    const chat = chatClient(name);
    const transport = new StreamableHTTPClientTransport(new URL(`${served.http.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${served.token}` } } });
    await chat.client.connect(transport);
    closers.push(() => chat.client.close());
    return chat;
  }

  async function stdioClient(name: string): Promise<ChatClient> {
    const chat = chatClient(name);
    const env: Record<string, string> = { SANDPIT_HOME: sp.config.home, SANDPIT_LOG: 'info' };
    for (const key of ['PATH', 'HOME', 'DOCKER_HOST', 'SANDPIT_CHANNEL', 'TMPDIR']) if (process.env[key]) env[key] = process.env[key];
    const transport = new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', join(ROOT, 'src/cli/index.ts'), 'mcp'], cwd: ROOT, env, stderr: 'pipe' });
    await chat.client.connect(transport, { timeout: 60_000 });
    closers.push(() => chat.client.close());
    return chat;
  }

  beforeAll(async () => {
    sp = await startTestSandpit();
    mount = createMcpHttpMount(sp);
    served = await serveHttp(sp, 0, [mount.route]);
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
    for (const close of closers) await close().catch(() => undefined);
    await served?.close();
    await mount?.close();
    await sp?.cleanup();
  });

  it('over HTTP: "Approve" in the chat runs the call; the question says what runs and where; the audit row says it was answered in the chat', async () => {
    const chat = await httpClient('chat-http-approve');
    await setApprovals(chat.name, 'free');
    await execute(chat, 'warm = 1');
    await setApprovals(chat.name, 'ask-every');
    chat.answers.push(accept('approve'));
    const result = await execute(chat, 'x = 41\nx + 1');
    expect(result.isError ?? false, textOf(result)).toBe(false);
    expect(result.structuredContent).toMatchObject({ status: 'ok', result: '42' });
    expect(chat.asked).toHaveLength(1);
    const params = chat.asked[0]!.request.params as unknown as { mode?: string; message: string; requestedSchema: { properties: { decision: { oneOf: Array<{ const: string; title: string }> } } } };
    expect(params.mode).toBe('form');
    expect(params.message).toMatch(/^Sandpit asks: may chat-http-approve do this\?\nRun code in the session "[^"]+"\.\nEnvironment: [^\n]+\nNetwork: none\n\nCode:\nx = 41\nx \+ 1\n\nThe Sandpit panel asks the same; whichever you answer first decides\.$/);
    expect(params.requestedSchema.properties.decision.oneOf.map((o) => o.title)).toEqual(['Approve', 'Deny', 'Approve for this session']);
    const approval = await nextRequest();
    expect(approval.askedInChat).toBe(true);
    expect(resolved).toEqual([{ id: approval.id, decision: 'approved', answeredIn: 'chat' }]);
    expect((await call(sp.api, 'approvals.list', {}, PANEL)).pending).toEqual([]);
    expect(await lastAuditRow()).toMatchObject({ status: 'ok', client: 'chat-http-approve', approval: 'Approved in the chat by chat-http-approve' });
  });

  it('over HTTP: "Deny" in the chat refuses the call, nothing runs, and the audit row says it was denied in the chat', async () => {
    const chat = await httpClient('chat-http-deny');
    await setApprovals(chat.name, 'ask-every');
    chat.answers.push(accept('deny'));
    const result = await execute(chat, 'print("must not run")');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('DENIED: The person denied this run in the chat (chat-http-deny).');
    expect(started).toEqual([]);
    // A new session: "for this session" is not offered (there is no session yet to approve).
    const params = chat.asked[0]!.request.params as unknown as { message: string; requestedSchema: { properties: { decision: { oneOf: Array<{ title: string }> } } } };
    expect(params.requestedSchema.properties.decision.oneOf.map((o) => o.title)).toEqual(['Approve', 'Deny']);
    expect(params.message).toContain('in a new Python session');
    expect(await lastAuditRow()).toMatchObject({ status: 'denied', approval: 'Denied in the chat by chat-http-deny' });
  });

  it('over HTTP: "Approve for this session" approves the later calls of that session without asking again', async () => {
    const chat = await httpClient('chat-http-session');
    await setApprovals(chat.name, 'free');
    await execute(chat, 'n = 0');
    await setApprovals(chat.name, 'ask-every');
    chat.answers.push(accept('approve-session'));
    expect((await execute(chat, 'n += 1\nn')).structuredContent).toMatchObject({ status: 'ok', result: '1' });
    expect(await lastAuditRow()).toMatchObject({ approval: 'Approved in the chat by chat-http-session, for the rest of this session' });
    requested = [];
    expect((await execute(chat, 'n += 1\nn')).structuredContent).toMatchObject({ status: 'ok', result: '2' });
    expect(chat.asked).toHaveLength(1);
    expect(requested).toEqual([]);
    expect(await lastAuditRow()).toMatchObject({ status: 'ok', approval: 'Approved earlier in the chat by chat-http-session, for the rest of this session' });
    // The panel shows it and can take it back (an assistant cannot even see it); then the next call is asked again.
    const second = await execute(chat, 'n');
    const sessionId = (second.structuredContent as { session_id: string }).session_id;
    expect(await call(sp.api, 'approvals.sessionGrants', { sessionId }, PANEL)).toMatchObject({ grants: [{ client: 'chat-http-session' }] });
    await expect(call(sp.api, 'approvals.sessionGrants', { sessionId }, { transport: 'http', principal: 'someone', client: 'chat-http-session' })).rejects.toThrow(/Only the Sandpit panel/);
    expect(await call(sp.api, 'approvals.revokeSessionGrant', { sessionId, client: 'chat-http-session' }, PANEL)).toEqual({ revoked: 1 });
    expect(await call(sp.api, 'approvals.sessionGrants', { sessionId }, PANEL)).toEqual({ grants: [] });
    chat.answers.push(accept('deny'));
    expect((await execute(chat, 'n += 1\nn')).isError).toBe(true);
    expect(chat.asked).toHaveLength(2);
    // Another client's calls in its own session are still asked.
    const other = await httpClient('chat-http-other');
    await setApprovals(other.name, 'ask-every');
    other.answers.push(accept('deny'));
    expect((await execute(other, '1')).isError).toBe(true);
    expect(other.asked).toHaveLength(1);
  });

  it('over HTTP: unanswered in time, the call is refused and the chat\'s question is withdrawn', async () => {
    const chat = await httpClient('chat-http-timeout');
    await setApprovals(chat.name, 'ask-every', { timeoutSeconds: 10 });
    const result = await execute(chat, 'print("never")');
    expect(textOf(result)).toBe('DENIED: No one answered within 10 s, so the run was not allowed.');
    expect(chat.asked).toHaveLength(1);
    await pollUntil(() => (chat.asked[0]!.withdrawn ? true : undefined), 5_000, 'the chat question to be withdrawn');
    expect(await lastAuditRow()).toMatchObject({ status: 'denied', approval: 'Not answered in time' });
  });

  it('over HTTP: the panel answering first decides, and the chat\'s question is withdrawn at once', async () => {
    const chat = await httpClient('chat-http-panel');
    await setApprovals(chat.name, 'ask-every');
    const pending = execute(chat, '7 * 6');
    const approval = await nextRequest();
    await pollUntil(() => (chat.asked.length === 1 ? true : undefined), 10_000, 'the question in the chat');
    expect(await call(sp.api, 'approvals.respond', { id: approval.id, decision: 'approve' }, PANEL)).toEqual({ ok: true });
    const result = await pending;
    expect(result.structuredContent).toMatchObject({ status: 'ok', result: '42' });
    await pollUntil(() => (chat.asked[0]!.withdrawn ? true : undefined), 5_000, 'the chat question to be withdrawn');
    expect(resolved).toEqual([{ id: approval.id, decision: 'approved' }]);
    expect(await lastAuditRow()).toMatchObject({ approval: 'Approved in the panel' });
  });

  it('with chat approvals off in Settings, or a client without elicitation, only the panel asks', async () => {
    const chat = await httpClient('chat-http-off');
    await setApprovals(chat.name, 'ask-every', { askInChat: false });
    const pending = execute(chat, '"panel only"');
    const approval = await nextRequest();
    expect(approval.askedInChat).toBeUndefined();
    await call(sp.api, 'approvals.respond', { id: approval.id, decision: 'deny' }, PANEL);
    expect(textOf(await pending)).toBe('DENIED: The person using Sandpit denied this run.');
    expect(chat.asked).toEqual([]);
    expect(await lastAuditRow()).toMatchObject({ approval: 'Denied in the panel' });

    const plain = new Client({ name: 'chat-http-plain', version: '1.0.0' });
    await plain.connect(new StreamableHTTPClientTransport(new URL(`${served.http.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${served.token}` } } }));
    closers.push(() => plain.close());
    await setApprovals('chat-http-plain', 'ask-every');
    const plainPending = plain.callTool({ name: 'execute_code', arguments: { code: '1' } }, undefined, { timeout: 60_000 });
    const plainApproval = await nextRequest();
    expect(plainApproval.askedInChat).toBeUndefined();
    await call(sp.api, 'approvals.respond', { id: plainApproval.id, decision: 'approve' }, PANEL);
    expect(((await plainPending) as CallToolResult).structuredContent).toMatchObject({ status: 'ok' });
  });

  it('over stdio (sandpit mcp bridging to the instance): approve in the chat, and the panel answering first withdraws the chat\'s question', async () => {
    const chat = await stdioClient('chat-stdio');
    await setApprovals(chat.name, 'ask-every');
    chat.answers.push(accept('approve'));
    const first = await execute(chat, '"asked in the chat"');
    expect(first.structuredContent, textOf(first)).toMatchObject({ status: 'ok', result: "'asked in the chat'" });
    expect(await lastAuditRow()).toMatchObject({ transport: 'mcp-stdio', approval: 'Approved in the chat by chat-stdio' });

    requested = [];
    const pending = execute(chat, 'print("not allowed")');
    const approval = await nextRequest();
    await pollUntil(() => (chat.asked.length === 2 ? true : undefined), 10_000, 'the second question in the chat');
    await call(sp.api, 'approvals.respond', { id: approval.id, decision: 'deny' }, PANEL);
    expect(textOf(await pending)).toBe('DENIED: The person using Sandpit denied this run.');
    await pollUntil(() => (chat.asked[1]!.withdrawn ? true : undefined), 5_000, 'the chat question to be withdrawn');
    expect(await lastAuditRow()).toMatchObject({ status: 'denied', approval: 'Denied in the panel' });
  });
});
