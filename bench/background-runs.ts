/**
 * Background runs (issue 23): how soon `get_run` with `wait_seconds` answers after the run it waits for ends. A real
 * SDK client (in-process transport, so the figure is Sandpit's own delay, not a network's) starts a 300 ms run in the
 * background and at once calls get_run with wait_seconds 10; the run's end is the moment its result is kept
 * (`run.updated` state done), and also — for reference — the agent's `execution.done`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer } from '../src/core/mcp/create-mcp-server';
import { now, progress, withCore } from './harness';
import { LATENCY_HEADERS, formatMs, goal, goalTable, latencyRow, roundDistribution, summarize, table } from './stats';
import type { Distribution, Goal } from './stats';

const N = 20;
const CODE = 'import time\ntime.sleep(0.3)\n"slept"';

export interface BackgroundRunsSummary {
  n: number;
  /** get_run's answer after the run's result was kept. */
  afterResult: Distribution;
  /** get_run's answer after the agent said the run was done (includes artifact capture and the audit row). */
  afterAgentDone: Distribution;
  goals: Goal[];
}

export async function run(): Promise<BackgroundRunsSummary> {
  const afterResult: number[] = [];
  const afterDone: number[] = [];
  await withCore({ poolSize: 0 }, async (sandpit) => {
    const mcp = createMcpServer({ sandpit, context: () => ({ transport: 'mcp-stdio', client: 'bench', principal: 'bench' }) });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcp.server.connect(serverSide);
    const client = new Client({ name: 'bench', version: '1.0.0' });
    await client.connect(clientSide);
    const resultAt = new Map<string, number>();
    const doneAt = new Map<string, number>();
    sandpit.bus.on('run.updated', (r) => {
      if (r.state === 'done' && !resultAt.has(r.runId)) resultAt.set(r.runId, now());
    });
    sandpit.bus.on('execution.done', (e) => doneAt.set(e.executionId, now()));
    const call = async (name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
      const r = (await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as CallToolResult;
      if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
      return r.structuredContent as Record<string, unknown>;
    };
    // Warm-up: the default session starts.
    await call('execute_code', { code: '1' });
    progress(`background-runs: 1 warm-up + ${N} rounds of a 300 ms background run waited for with get_run`);
    for (let i = -1; i < N; i++) {
      const start = await call('execute_code', { code: CODE, background: true });
      const runId = start.run_id as string;
      let answer = await call('get_run', { run_id: runId, wait_seconds: 10 });
      while (answer.state !== 'done') answer = await call('get_run', { run_id: runId, since: answer.cursor, wait_seconds: 10 });
      const returned = now();
      if (i < 0) continue;
      afterResult.push(returned - (resultAt.get(runId) ?? NaN));
      afterDone.push(returned - (doneAt.get(runId) ?? NaN));
      progress(`background-runs: ${i + 1}/${N}: ${formatMs(afterResult[i] ?? NaN)} after the result, ${formatMs(afterDone[i] ?? NaN)} after the agent's done`);
    }
    await client.close();
    await mcp.close();
  });
  const result = summarize(afterResult);
  const done = summarize(afterDone);
  process.stdout.write(`\n## background runs: get_run with wait_seconds, after the run ended (N=${N})\n`);
  process.stdout.write(`${table([...LATENCY_HEADERS], [latencyRow('after its result was kept', result), latencyRow("after the agent's done", done)])}\n`);
  const goals = [goal('background-runs: get_run answers after the end, p50', '≤ 5 ms', formatMs(result.p50), result.p50 <= 5), goal('background-runs: get_run answers after the end, p99', '≤ 5 ms', formatMs(result.p99), result.p99 <= 5)];
  process.stdout.write(`${goalTable(goals)}\n`);
  return { n: N, afterResult: roundDistribution(result), afterAgentDone: roundDistribution(done), goals };
}
