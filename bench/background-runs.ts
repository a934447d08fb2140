/**
 * Background runs (issue 23): how soon `get_run` with `wait_seconds` answers after the run it waits for ends. A real
 * SDK client (in-process transport, so the figure is Sandpit's own delay, not a network's) starts a 300 ms run in the
 * background and at once calls get_run with wait_seconds 10; the run's end is the moment its result is kept
 * (`run.updated` state done), and also — for reference — the agent's `execution.done`.
 *
 * The wait is not a timer: the run's end wakes the waiting get_run at once (background-runs.ts). What is left between
 * the end and the answer is work on the one thread — and, on a loaded machine, waiting for a CPU. So each round also
 * measures the process's CPU time over that same window: a slow round whose CPU time stayed small was the machine's
 * scheduling (the thread was ready but not running), not Sandpit's work.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer } from '../src/core/mcp/create-mcp-server';
import { now, progress, withCore } from './harness';
import { LATENCY_HEADERS, formatMs, goal, goalTable, latencyRow, roundDistribution, summarize, table } from './stats';
import type { Distribution, Goal } from './stats';

const N = 100;

/**
 * How long the main thread has waited, ready to run, for a CPU (Linux: the second field of its schedstat, in ns → ms);
 * undefined where the kernel does not say.
 */
function waitedForCpuMs(): number | undefined {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').trim().split(/\s+/);
    const ns = Number(fields[1]);
    return Number.isFinite(ns) ? ns / 1e6 : undefined;
  } catch {
    return undefined;
  }
}
const CODE = 'import time\ntime.sleep(0.3)\n"slept"';

export interface BackgroundRunsSummary {
  n: number;
  /** get_run's answer after the run's result was kept. */
  afterResult: Distribution;
  /** get_run's answer after the agent said the run was done (includes artifact capture and the audit row). */
  afterAgentDone: Distribution;
  /** CPU time the process used between the result being kept and the answer (all its threads). */
  cpuOnPath: Distribution;
  /** How long of that window the main thread was ready but waited for a CPU (Linux only). */
  waitedForCpu?: Distribution;
  /** The load average (1 min) when the rounds started and ended. */
  load: [number, number];
  goals: Goal[];
}

export async function run(): Promise<BackgroundRunsSummary> {
  const afterResult: number[] = [];
  const afterDone: number[] = [];
  const cpuOnPath: number[] = [];
  const waited: number[] = [];
  let loadBefore = 0;
  await withCore({ poolSize: 0 }, async (sandpit) => {
    const mcp = createMcpServer({ sandpit, context: () => ({ transport: 'mcp-stdio', client: 'bench', principal: 'bench' }) });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcp.server.connect(serverSide);
    const client = new Client({ name: 'bench', version: '1.0.0' });
    await client.connect(clientSide);
    const resultAt = new Map<string, number>();
    const cpuAt = new Map<string, NodeJS.CpuUsage>();
    const waitAt = new Map<string, number | undefined>();
    const doneAt = new Map<string, number>();
    sandpit.bus.on('run.updated', (r) => {
      if (r.state !== 'done' || resultAt.has(r.runId)) return;
      resultAt.set(r.runId, now());
      cpuAt.set(r.runId, process.cpuUsage());
      waitAt.set(r.runId, waitedForCpuMs());
    });
    sandpit.bus.on('execution.done', (e) => doneAt.set(e.executionId, now()));
    const call = async (name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
      const r = (await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as CallToolResult;
      if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
      return r.structuredContent as Record<string, unknown>;
    };
    // Warm-up: the default session starts.
    await call('execute_code', { code: '1' });
    loadBefore = loadavg()[0] ?? NaN;
    progress(`background-runs: 1 warm-up + ${N} rounds of a 300 ms background run waited for with get_run (load ${loadBefore.toFixed(1)})`);
    for (let i = -1; i < N; i++) {
      const start = await call('execute_code', { code: CODE, background: true });
      const runId = start.run_id as string;
      let answer = await call('get_run', { run_id: runId, wait_seconds: 10 });
      while (answer.state !== 'done') answer = await call('get_run', { run_id: runId, since: answer.cursor, wait_seconds: 10 });
      const returned = now();
      const cpu = process.cpuUsage(cpuAt.get(runId));
      const waitedNow = waitedForCpuMs();
      const waitedBefore = waitAt.get(runId);
      if (i < 0) continue;
      if (waitedNow !== undefined && waitedBefore !== undefined) waited.push(waitedNow - waitedBefore);
      afterResult.push(returned - (resultAt.get(runId) ?? NaN));
      afterDone.push(returned - (doneAt.get(runId) ?? NaN));
      cpuOnPath.push((cpu.user + cpu.system) / 1000);
      progress(`background-runs: ${i + 1}/${N}: ${formatMs(afterResult[i] ?? NaN)} after the result (${formatMs(cpuOnPath[i] ?? NaN)} on a CPU, ${formatMs(waited[i] ?? NaN)} waiting for one), ${formatMs(afterDone[i] ?? NaN)} after the agent's done`);
    }
    await client.close();
    await mcp.close();
  });
  const result = summarize(afterResult);
  const done = summarize(afterDone);
  const cpu = summarize(cpuOnPath);
  const waitedFor = waited.length === afterResult.length ? summarize(waited) : undefined;
  const loadAfter = loadavg()[0] ?? NaN;
  // Rounds over 2 ms: how much of each the process was on a CPU, and how long its main thread waited for one.
  const slow = afterResult.map((wall, i) => ({ wall, cpu: cpuOnPath[i] ?? NaN, waited: waited[i] })).filter((r) => r.wall > 2);
  process.stdout.write(`\n## background runs: get_run with wait_seconds, after the run ended (N=${N}, load ${loadBefore.toFixed(1)} → ${loadAfter.toFixed(1)})\n`);
  process.stdout.write(
    `${table([...LATENCY_HEADERS], [
      latencyRow('after its result was kept', result),
      latencyRow('  of it, the process on a CPU', cpu),
      ...(waitedFor ? [latencyRow('  of it, waiting for a CPU', waitedFor)] : []),
      latencyRow("after the agent's done", done),
    ])}\n`,
  );
  process.stdout.write(
    `rounds over 2 ms: ${slow.length}${slow.length ? ` — wall / on a CPU / waiting for a CPU: ${slow.map((r) => `${formatMs(r.wall)} / ${formatMs(r.cpu)} / ${r.waited === undefined ? '?' : formatMs(r.waited)}`).join(', ')}` : ''}\n`,
  );
  const goals = [goal('background-runs: get_run answers after the end, p50', '≤ 5 ms', formatMs(result.p50), result.p50 <= 5), goal('background-runs: get_run answers after the end, p99', '≤ 5 ms', formatMs(result.p99), result.p99 <= 5)];
  process.stdout.write(`${goalTable(goals)}\n`);
  return { n: N, afterResult: roundDistribution(result), afterAgentDone: roundDistribution(done), cpuOnPath: roundDistribution(cpu), ...(waitedFor ? { waitedForCpu: roundDistribution(waitedFor) } : {}), load: [loadBefore, loadAfter], goals };
}
