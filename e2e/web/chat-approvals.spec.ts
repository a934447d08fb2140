/**
 * Approvals in the chat (issue 23): an assistant that can show questions (the MCP SDK's client with form
 * elicitation) is asked in its chat AND in the panel; whichever is answered first decides, the other goes at once.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from '@playwright/test';
import { textOf } from '../support/mcp';
import { uniqueName } from '../support/panel-api';
import { saveScreenshot } from '../support/screenshots';
import { test } from './fixtures';

interface Question {
  message: string;
  withdrawn: boolean;
  answer(result: ElicitResult): void;
}

test('the panel answering first withdraws the chat\'s question; the chat answering first takes the panel\'s prompt away; Settings turns it off', async ({ panel, server }, testInfo) => {
  const name = uniqueName('e2e-chat');
  const settings = await panel.settings();
  await expect(settings.approvals.getByTestId('settings-approval-ask-in-chat')).toBeChecked();
  await settings.askEveryTime(name);

  const questions: Question[] = [];
  const client = new Client({ name, version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
    return new Promise<ElicitResult>((resolve, reject) => {
      const question: Question = { message: request.params.message, withdrawn: false, answer: resolve };
      questions.push(question);
      extra.signal.addEventListener('abort', () => {
        question.withdrawn = true;
        reject(new Error('withdrawn'));
      });
    });
  });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${server.token}` } } });
  await client.connect(transport);
  const execute = (code: string): Promise<CallToolResult> =>
    client.callTool({ name: 'execute_code', arguments: { code } }, undefined, { timeout: 110_000 }) as Promise<CallToolResult>;
  try {
    await panel.sessions();

    // 1. Asked in both places; the panel answers first: the chat's question is withdrawn, the run goes ahead.
    const first = uniqueName('panel-first');
    const firstCall = execute(`print("${first}")`);
    const card = await panel.approvals.waitFor(first);
    await expect(card.getByTestId('approval-in-chat')).toHaveText(`Also asked in ${name}’s chat: whichever you answer first decides.`);
    await expect.poll(() => questions.length).toBe(1);
    expect(questions[0]!.message).toContain(`print("${first}")`);
    expect(questions[0]!.message).toContain('The Sandpit panel asks the same; whichever you answer first decides.');
    await saveScreenshot(panel.page, testInfo, 'asked-in-chat-too');
    await panel.approvals.approve(card);
    const ok = await firstCall;
    expect(ok.isError ?? false, textOf(ok)).toBe(false);
    await expect.poll(() => questions[0]!.withdrawn).toBe(true);

    // 2. The chat answers first: the panel's prompt goes at once, and the panel says where it was answered.
    const second = uniqueName('chat-first');
    const secondCall = execute(`print("${second}")`);
    const card2 = await panel.approvals.waitFor(second);
    await expect.poll(() => questions.length).toBe(2);
    questions[1]!.answer({ action: 'accept', content: { decision: 'approve' } });
    await expect(card2).toBeHidden();
    await expect(panel.page.getByTestId('approval-ended').filter({ hasText: name })).toHaveText(`A request from ${name} was approved in the chat.OK`);
    const ok2 = await secondCall;
    expect((ok2.structuredContent as { stdout?: string } | undefined)?.stdout).toContain(second);

    // Activity says where each was answered.
    const activity = await panel.activity();
    const detail1 = await activity.openRow(activity.rowsWith(first));
    await expect(detail1.getByTestId('activity-detail-approval')).toHaveText('Approved in the panel');
    await panel.page.keyboard.press('Escape');
    await expect(detail1).toBeHidden();
    const detail2 = await activity.openRow(activity.rowsWith(second));
    await expect(detail2.getByTestId('activity-detail-approval')).toHaveText(`Approved in the chat by ${name}`);
    await panel.page.keyboard.press('Escape');
    await expect(detail2).toBeHidden();

    // 3. Turned off in Settings: only the panel asks.
    const again = await panel.settings();
    await again.approvals.getByTestId('settings-approval-ask-in-chat').uncheck();
    await again.save();
    await panel.sessions();
    const third = uniqueName('panel-only');
    const thirdCall = execute(`print("${third}")`);
    const card3 = await panel.approvals.waitFor(third);
    await expect(card3.getByTestId('approval-in-chat')).toHaveCount(0);
    await panel.approvals.deny(card3);
    expect(textOf(await thirdCall)).toBe('DENIED: The person using Sandpit denied this run.');
    expect(questions).toHaveLength(2);
  } finally {
    // Ends the MCP session too, so the assistant no longer counts as connected for the specs that follow.
    await transport.terminateSession().catch(() => undefined);
    await client.close().catch(() => undefined);
    const reset = await panel.settings();
    await reset.approvals.getByTestId('settings-approval-ask-in-chat').check();
    await reset.removeRule(name);
  }
});

test('"Approve for this session" in the chat shows on the session\'s page, and Ask again takes it back', async ({ panel, server }) => {
  const name = uniqueName('e2e-grant');
  const settings = await panel.settings();
  await settings.askEveryTime(name);
  const questions: Array<(result: ElicitResult) => void> = [];
  const client = new Client({ name, version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, () => new Promise<ElicitResult>((resolve) => questions.push(resolve)));
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${server.token}` } } });
  await client.connect(transport);
  const execute = (code: string): Promise<CallToolResult> =>
    client.callTool({ name: 'execute_code', arguments: { code } }, undefined, { timeout: 110_000 }) as Promise<CallToolResult>;
  try {
    // A first run (asked, approved in the chat) makes the session; the second is approved for the rest of it.
    const first = execute('n = 1');
    await expect.poll(() => questions.length, { timeout: 60_000 }).toBe(1);
    questions[0]!({ action: 'accept', content: { decision: 'approve' } });
    const made = await first;
    const sessionId = (made.structuredContent as { session_id: string }).session_id;
    const second = execute('n += 1\nn');
    await expect.poll(() => questions.length, { timeout: 60_000 }).toBe(2);
    questions[1]!({ action: 'accept', content: { decision: 'approve-session' } });
    expect((await second).structuredContent).toMatchObject({ result: '2' });

    const sessions = await panel.sessions();
    await sessions.open(sessionId);
    const grants = panel.page.getByTestId('session-grants');
    await expect(grants.getByRole('heading')).toHaveText('Allowed for this session without asking');
    const grant = grants.getByTestId('session-grant');
    await expect(grant).toContainText(`${name} runs code here without asking: you chose “Approve for this session” in the chat at`);
    // Not asked now:
    expect((await execute('n += 1\nn')).structuredContent).toMatchObject({ result: '3' });
    expect(questions).toHaveLength(2);
    await grant.getByTestId('session-grant-revoke').click();
    await expect(grants).toBeHidden();
    // Asked again: the panel shows the prompt (and the chat asks) — denied here, nothing runs.
    const fourth = execute('n += 1\nn');
    const card = await panel.approvals.waitFor('n += 1');
    await panel.approvals.deny(card);
    expect((await fourth).isError).toBe(true);
    expect(questions).toHaveLength(3);
  } finally {
    // Ends the MCP session too, so the assistant no longer counts as connected for the specs that follow.
    await transport.terminateSession().catch(() => undefined);
    await client.close().catch(() => undefined);
    const reset = await panel.settings();
    await reset.removeRule(name);
  }
});
