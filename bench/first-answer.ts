/**
 * The first answer, as an assistant meets it: a fresh `node bin/sandpit.mjs mcp` process (the command the
 * assistant configs use; a fresh SANDPIT_HOME, the images already built) — spawn → `initialize` answered
 * (connect), `tools/list`, the first `execute_code` in Python and in JavaScript — repeated over fresh
 * processes. The first call is timed twice, in separate processes: sent at once after `tools/list` (no
 * sandbox can exist yet: it waits for a container to start), and sent 1 s after connect (an assistant's
 * first tool call comes after a model has read the tools and a person's request: seconds, never less).
 * Then the same connect when bridging to a running `sandpit serve`, and warm `execute_code` p50/p99 with
 * 1 client and with 4 clients in parallel (4 processes, each with its own data folder: one data folder has one
 * owner, and a second `sandpit mcp` on it refuses, saying which instance runs).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { now, progress, sleep } from './harness';
import { SANDPIT_BIN, execute, spawnSandpitMcp } from './stdio-client';
import type { Spawned } from './stdio-client';
import { LATENCY_HEADERS, formatMs, goal, goalTable, latencyRow, roundDistribution, summarize, table } from './stats';
import type { Distribution, Goal } from './stats';

const ROUNDS = Number(process.env.SANDPIT_BENCH_FIRST_ROUNDS) || 8;
const WARM_CALLS = Number(process.env.SANDPIT_BENCH_WARM_CALLS) || 300;
/** When the "first call a second after connect" is sent. */
const ASSISTANT_GAP_MS = 1_000;
/** Before the warm runs: long enough for four processes' warm pools to fill on a 2-core machine. */
const WARM_SETTLE_MS = 8_000;

export interface FirstAnswerSummary {
  connect: Distribution;
  toolsList: Distribution;
  firstPython: Distribution;
  firstJavascript: Distribution;
  firstPythonAtOnce: Distribution;
  firstJavascriptAtOnce: Distribution;
  bridgeConnect: Distribution;
  warm1: Distribution;
  warm4: Distribution;
  goals: Goal[];
}

async function connect(home: string): Promise<{ spawned: Spawned; ms: number }> {
  return spawnSandpitMcp(home);
}

/** `sandpit serve` on a free port for `home`, ready when it prints its address. */
async function serve(home: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [SANDPIT_BIN, 'serve', '--port', '0'], { env: { ...process.env, SANDPIT_HOME: home, SANDPIT_LOG: 'error' }, stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise<void>((resolveReady, reject) => {
    const timer = setTimeout(() => reject(new Error('sandpit serve did not start')), 60_000);
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (/Sandpit is running at/.test(text)) {
        clearTimeout(timer);
        resolveReady();
      }
    });
  });
  return child;
}

async function stopServe(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}

export async function run(): Promise<FirstAnswerSummary> {
  const connects: number[] = [];
  const lists: number[] = [];
  const pythons: number[] = [];
  const javascripts: number[] = [];
  const pythonsAtOnce: number[] = [];
  const javascriptsAtOnce: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const atOnce of [true, false]) {
      const home = await mkdtemp(join(tmpdir(), 'sandpit-bench-first-'));
      try {
        const { spawned, ms } = await connect(home);
        const connected = now();
        connects.push(ms);
        const t0 = now();
        await spawned.client.listTools();
        lists.push(now() - t0);
        if (!atOnce) await sleep(Math.max(0, ASSISTANT_GAP_MS - (now() - connected)));
        const python = await execute(spawned.client, '1+1', 'python', '2');
        const javascript = await execute(spawned.client, '1+1', 'javascript', '2');
        (atOnce ? pythonsAtOnce : pythons).push(python);
        (atOnce ? javascriptsAtOnce : javascripts).push(javascript);
        await spawned.close();
        progress(`first-answer: round ${round + 1}/${ROUNDS} (${atOnce ? 'first call at once' : `first call ${ASSISTANT_GAP_MS} ms after connect`}): connect ${formatMs(ms)}, python ${formatMs(python)}, javascript ${formatMs(javascript)}`);
      } finally {
        await rm(home, { recursive: true, force: true });
      }
      await sleep(500);
    }
  }

  // Bridging: a running instance for the data folder; the mcp process forwards to it.
  const bridged: number[] = [];
  const bridgeHome = await mkdtemp(join(tmpdir(), 'sandpit-bench-bridge-'));
  const server = await serve(bridgeHome);
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      const { spawned, ms } = await connect(bridgeHome);
      bridged.push(ms);
      await spawned.close();
    }
  } finally {
    await stopServe(server);
    await rm(bridgeHome, { recursive: true, force: true });
  }

  // Warm: one client, then four in parallel (four processes, each with its own data folder), each on its default session.
  const warmHomes = await Promise.all([0, 1, 2, 3].map(() => mkdtemp(join(tmpdir(), 'sandpit-bench-warm-'))));
  const clients: Spawned[] = [];
  const warm1: number[] = [];
  const warm4: number[] = [];
  try {
    for (const home of warmHomes) clients.push((await connect(home)).spawned);
    for (const c of clients) for (let i = 0; i < 20; i += 1) await execute(c.client, '1+1', 'python', '2');
    // Warm means steady: each process's pools have filled (3 languages × 2 sandboxes) before the timing starts.
    await sleep(WARM_SETTLE_MS);
    for (let i = 0; i < WARM_CALLS; i += 1) warm1.push(await execute(clients[0]!.client, '1+1', 'python', '2'));
    await Promise.all(
      clients.map(async (c) => {
        for (let i = 0; i < WARM_CALLS / 2; i += 1) warm4.push(await execute(c.client, '1+1', 'python', '2'));
      }),
    );
  } finally {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all(warmHomes.map((home) => rm(home, { recursive: true, force: true })));
  }

  const summary = {
    connect: roundDistribution(summarize(connects)),
    toolsList: roundDistribution(summarize(lists)),
    firstPython: roundDistribution(summarize(pythons)),
    firstJavascript: roundDistribution(summarize(javascripts)),
    firstPythonAtOnce: roundDistribution(summarize(pythonsAtOnce)),
    firstJavascriptAtOnce: roundDistribution(summarize(javascriptsAtOnce)),
    bridgeConnect: roundDistribution(summarize(bridged)),
    warm1: roundDistribution(summarize(warm1)),
    warm4: roundDistribution(summarize(warm4)),
  };
  const goals = [
    goal('connect (spawn → initialize answered), own core', '≤ 100 ms p50', formatMs(summary.connect.p50), summary.connect.p50 <= 100),
    goal('connect when bridging to a running instance', '≤ 100 ms p50', formatMs(summary.bridgeConnect.p50), summary.bridgeConnect.p50 <= 100),
    goal(`first execute_code (Python), ${ASSISTANT_GAP_MS} ms after connect`, '≤ 30 ms p50', formatMs(summary.firstPython.p50), summary.firstPython.p50 <= 30),
    goal(`first execute_code (JavaScript), after that`, '≤ 50 ms p50', formatMs(summary.firstJavascript.p50), summary.firstJavascript.p50 <= 50),
    goal('first execute_code (Python) sent at once after tools/list', '≤ 30 ms p50 (a container must start first)', formatMs(summary.firstPythonAtOnce.p50), summary.firstPythonAtOnce.p50 <= 30),
    goal('warm execute_code, 4 clients in parallel', 'p50 ≤ 2 ms, p99 ≤ 5 ms', `${formatMs(summary.warm4.p50)} / ${formatMs(summary.warm4.p99)}`, summary.warm4.p50 <= 2 && summary.warm4.p99 <= 5),
  ];
  process.stdout.write(
    `\n## first answer (fresh \`node bin/sandpit.mjs mcp\`, ${ROUNDS} rounds; warm: ${WARM_CALLS} calls)\n` +
      table(LATENCY_HEADERS, [
        latencyRow('connect: spawn → initialize answered', summary.connect),
        latencyRow('tools/list', summary.toolsList),
        latencyRow('first execute_code, Python, sent at once', summary.firstPythonAtOnce),
        latencyRow('then JavaScript', summary.firstJavascriptAtOnce),
        latencyRow(`first execute_code, Python, ${ASSISTANT_GAP_MS} ms after connect`, summary.firstPython),
        latencyRow('then JavaScript', summary.firstJavascript),
        latencyRow('connect, bridging to sandpit serve', summary.bridgeConnect),
        latencyRow('warm execute_code, 1 client', summary.warm1),
        latencyRow('warm execute_code, 4 clients in parallel', summary.warm4),
      ]) +
      `\n${goalTable(goals)}\n`,
  );
  return { ...summary, goals };
}
