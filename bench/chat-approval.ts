/**
 * What asking in the chat costs (issue 23): `1+1` by tools/call execute_code over Streamable HTTP from an SDK
 * client that declares form elicitation and answers "Approve" at once, (a) under "run freely" (nothing asked)
 * versus (b) under "ask every time" with the question answered in the chat — the added time is Sandpit's own
 * share of a chat approval (the elicitation round trip, the queue, the audit note), the person's thinking aside.
 * Interleaved in one run on one default session.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { call } from '../src/core/api/dispatcher';
import { serveHttp } from '../src/core/http/serve-http';
import { createMcpHttpMount } from '../src/core/mcp/http-mount';
import { now, progress, withCore } from './harness';
import { LATENCY_HEADERS, formatMs, goal, goalTable, latencyRow, round, roundDistribution, summarize, table } from './stats';
import type { Distribution, Goal } from './stats';

const N = 100;
const WARMUP = 10;
const CLIENT = 'bench-chat-approval';

export interface ChatApprovalSummary {
  free: Distribution;
  askedInChat: Distribution;
  addedP50Ms: number;
  addedP99Ms: number;
  goals: Goal[];
}

export async function run(): Promise<ChatApprovalSummary> {
  return withCore({}, async (sandpit) => {
    const mount = createMcpHttpMount(sandpit);
    const served = await serveHttp(sandpit, 0, [mount.route]);
    const client = new Client({ name: CLIENT, version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    let asked = 0;
    client.setRequestHandler(ElicitRequestSchema, () => {
      asked += 1;
      return { action: 'accept', content: { decision: 'approve' } };
    });
    const setPolicy = (policy: 'free' | 'ask-every'): Promise<unknown> =>
      call(sandpit.api, 'settings.update', { patch: { approvals: { perClient: { [CLIENT]: policy } } } }, { transport: 'ipc' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`${served.http.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${served.token}` } } }));
      const once = async (): Promise<number> => {
        const t0 = now();
        const result = (await client.callTool({ name: 'execute_code', arguments: { code: '1+1' } }, undefined, { timeout: 60_000 })) as CallToolResult;
        const elapsed = now() - t0;
        if (result.isError || (result.structuredContent as { result?: string } | undefined)?.result !== '2') throw new Error(`execute_code failed: ${JSON.stringify(result.content)}`);
        return elapsed;
      };
      const free: number[] = [];
      const chat: number[] = [];
      await setPolicy('free');
      for (let i = 0; i < WARMUP; i += 1) await once();
      for (let i = 0; i < N; i += 1) {
        await setPolicy('free');
        free.push(await once());
        await setPolicy('ask-every');
        const before = asked;
        chat.push(await once());
        if (asked !== before + 1) throw new Error('the chat was not asked');
        if (i % 25 === 0) progress(`chat-approval: ${i}/${N}`);
      }
      const f = summarize(free);
      const c = summarize(chat);
      const addedP50 = c.p50 - f.p50;
      const addedP99 = c.p99 - f.p99;
      process.stdout.write(`\n## Approval answered in the chat at once, over Streamable HTTP (N=${N} after ${WARMUP} warm-up, interleaved)\n`);
      process.stdout.write(`${table([...LATENCY_HEADERS], [latencyRow('(a) run freely', f), latencyRow('(b) asked, answered in the chat', c)])}\n`);
      process.stdout.write(`added by asking in the chat: ${formatMs(addedP50)} at p50, ${formatMs(addedP99)} at p99\n`);
      const goals = [goal('Chat approval: Sandpit\'s added time (p50)', '≤ 5 ms', formatMs(addedP50), addedP50 <= 5)];
      process.stdout.write(`${goalTable(goals)}\n`);
      return { free: roundDistribution(f), askedInChat: roundDistribution(c), addedP50Ms: round(addedP50), addedP99Ms: round(addedP99), goals };
    } finally {
      await client.close().catch(() => undefined);
      await served.close();
      await mount.close();
    }
  });
}
