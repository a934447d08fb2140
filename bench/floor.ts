/**
 * The floor (issue 20): every figure beside the reference that bounds it, measured in this one run so a busy
 * machine hits both alike.
 * - warm `execute_code` over stdio: a fresh `sandpit mcp` (hosting its own core) in Python and in JavaScript
 *   vs the trivial SDK server (trivial-mcp-server.ts: the same SDK, a tool that does nothing), interleaved;
 *   p50/p99, and each server process's CPU time per call (what the busy machine cannot inflate);
 * - 4 clients in parallel (4 `sandpit mcp` processes, each with its own data folder) vs 1 client, and the
 *   trivial server the same way;
 * - the first `execute_code` sent at once after `tools/list` (fresh process, fresh data folder; also timed from the
 *   spawn) vs one `docker run --rm` of the sandbox image, interleaved; and the first call sent 1 s after connect; both again for a
 *   `sandpit mcp` whose data folder's last `sandpit mcp` quit 1 s before, leaving its warm sandboxes (an assistant
 *   that starts it again: src/core/sessions/warm-handover.ts);
 * - 100 sessions created at once (scale.ts: from a warm pool of 2, 8 in flight) and memory per idle session, beside
 *   the engine alone creating and starting 100 containers of the sandbox image under the same profile (no workspace
 *   disk, no agent folder, no handshake), 8 in flight: what container starts cost on this machine.
 * Each part says the load average around it (2 cores shared with other work: read the ratios).
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { hardenedContainerSpec } from '../src/core/docker/container-profile';
import { LABEL } from '../src/core/docker/labels';
import { DockerodeClient } from '../src/core/docker/dockerode-client';
import { silentLogger } from '../src/core/log';
import { DEFAULT_LIMITS } from '../src/shared/domain/limits';
import { mapLimit, now, progress, pythonImage, sleep } from './harness';
import { manySessions } from './scale';
import { LATENCY_HEADERS, formatMiB, formatMs, formatRatio, goal, goalTable, latencyRow, roundDistribution, summarize, table } from './stats';
import type { Distribution, Goal } from './stats';
import { TRIVIAL_SERVER_ARGS, cpuMsOf, execute, spawnSandpitMcp, spawnStdio } from './stdio-client';
import type { Spawned } from './stdio-client';

const WARM_CALLS = Number(process.env.SANDPIT_BENCH_FLOOR_CALLS) || 500;
const FIRST_ROUNDS = Number(process.env.SANDPIT_BENCH_FLOOR_ROUNDS) || 6;
const WARM_UP = 30;
/** Before warm timing, at least: each process's pools (a few languages × 2 sandboxes) fill on a 2-core machine. */
const SETTLE_MS = 8_000;
const ASSISTANT_GAP_MS = 1_000;
/** How long the `sandpit mcp` that leaves its sandboxes stays after its call: its pools refill (2 cores). */
const HANDOVER_SETTLE_MS = Number(process.env.SANDPIT_BENCH_HANDOVER_SETTLE_MS) || 8_000;
const DOCKER_RUN_TIMEOUT_MS = 60_000;

const exec = promisify(execFile);

export interface FloorSummary {
  warm: { python: Distribution; javascript: Distribution; trivial: Distribution; cpuPerCallMs: { sandpit: number; trivial: number } };
  clients: { one: Distribution; four: Distribution; trivialOne: Distribution; trivialFour: Distribution };
  first: { atOnce: Distribution; atOnceFromSpawn: Distribution; afterGap: Distribution; dockerRun: Distribution; atOnceTakenOver: Distribution; afterGapTakenOver: Distribution };
  burst: { sessions: number; perSecond: number; memoryPerSessionMiB: number; fromPool: number; enginePerSecond: number };
  /** The 1-minute load average before and after each part. */
  load: Record<string, [number, number]>;
  goals: Goal[];
}

async function withHome<T>(body: (home: string) => Promise<T>): Promise<T> {
  const home = await mkdtemp(join(tmpdir(), 'sandpit-bench-floor-'));
  try {
    return await body(home);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

const trivial = (): Promise<{ spawned: Spawned; ms: number }> => spawnStdio(TRIVIAL_SERVER_ARGS);

/** How long to wait at most for the warm pools of `sandpit mcp` processes to stop growing. */
const POOLS_WAIT_MS = 120_000;
/** The pools count as full when their containers' number has not changed for this long. */
const POOLS_STEADY_MS = 3_000;

/**
 * Waits (at least SETTLE_MS) until the sandbox containers of these `sandpit mcp` processes (by the owner pid on
 * their labels) have stopped growing: warm calls measured while pools still fill measure the container starts.
 */
async function poolsSettled(pids: number[]): Promise<void> {
  const docker = new DockerodeClient({ logger: silentLogger });
  const count = async (): Promise<number> => (await Promise.all(pids.map((pid) => docker.listContainers({ [LABEL.ownerPid]: String(pid) })))).reduce((n, list) => n + list.length, 0);
  const started = now();
  let last = await count();
  let steadySince = now();
  while (now() - started < POOLS_WAIT_MS) {
    await sleep(500);
    const n = await count();
    if (n !== last) {
      last = n;
      steadySince = now();
    } else if (now() - steadySince >= POOLS_STEADY_MS && now() - started >= SETTLE_MS) return;
  }
}

/** Warm calls, interleaved: sandpit Python, sandpit JavaScript, the trivial server. */
async function warm(): Promise<FloorSummary['warm']> {
  return withHome(async (home) => {
    const sandpit = (await spawnSandpitMcp(home)).spawned;
    const reference = (await trivial()).spawned;
    try {
      for (let i = 0; i < WARM_UP; i += 1) {
        await execute(sandpit.client, '1+1', 'python', '2');
        await execute(sandpit.client, '1+1', 'javascript', '2');
        await execute(reference.client, '1+1', 'python', '2');
      }
      await poolsSettled([sandpit.pid]);
      progress(`floor: ${WARM_CALLS} warm calls each of sandpit Python / JavaScript and the trivial server, interleaved`);
      const samples = { python: [] as number[], javascript: [] as number[], trivial: [] as number[] };
      const cpu0 = { sandpit: cpuMsOf(sandpit.pid), trivial: cpuMsOf(reference.pid) };
      for (let i = 0; i < WARM_CALLS; i += 1) {
        samples.python.push(await execute(sandpit.client, '1+1', 'python', '2'));
        samples.javascript.push(await execute(sandpit.client, '1+1', 'javascript', '2'));
        samples.trivial.push(await execute(reference.client, '1+1', 'python', '2'));
      }
      const cpuPerCallMs = {
        sandpit: (cpuMsOf(sandpit.pid) - cpu0.sandpit) / (2 * WARM_CALLS),
        trivial: (cpuMsOf(reference.pid) - cpu0.trivial) / WARM_CALLS,
      };
      return { python: summarize(samples.python), javascript: summarize(samples.javascript), trivial: summarize(samples.trivial), cpuPerCallMs };
    } finally {
      await Promise.all([sandpit.close(), reference.close()]);
    }
  });
}

/** `calls` calls from each client, all clients at once. */
async function parallel(clients: Spawned[], calls: number): Promise<number[]> {
  const samples: number[] = [];
  await Promise.all(
    clients.map(async (c) => {
      for (let i = 0; i < calls; i += 1) samples.push(await execute(c.client, '1+1', 'python', '2'));
    }),
  );
  return samples;
}

/** 1 client, then 4 in parallel: sandpit (4 processes, a data folder each) and the trivial server. */
async function manyClients(): Promise<FloorSummary['clients']> {
  const homes: string[] = [];
  const sandpits: Spawned[] = [];
  const references: Spawned[] = [];
  try {
    for (let i = 0; i < 4; i += 1) {
      const home = await mkdtemp(join(tmpdir(), 'sandpit-bench-floor-clients-'));
      homes.push(home);
      sandpits.push((await spawnSandpitMcp(home)).spawned);
      references.push((await trivial()).spawned);
    }
    for (const c of [...sandpits, ...references]) for (let i = 0; i < WARM_UP; i += 1) await execute(c.client, '1+1', 'python', '2');
    await poolsSettled(sandpits.map((c) => c.pid));
    progress('floor: 1 client, then 4 clients in parallel (sandpit, then the trivial server)');
    const one = await parallel(sandpits.slice(0, 1), WARM_CALLS / 2);
    const four = await parallel(sandpits, WARM_CALLS / 4);
    const trivialOne = await parallel(references.slice(0, 1), WARM_CALLS / 2);
    const trivialFour = await parallel(references, WARM_CALLS / 4);
    return { one: summarize(one), four: summarize(four), trivialOne: summarize(trivialOne), trivialFour: summarize(trivialFour) };
  } finally {
    await Promise.all([...sandpits, ...references].map((c) => c.close()));
    await Promise.all(homes.map((home) => rm(home, { recursive: true, force: true })));
  }
}

/** One `docker run --rm` of the sandbox image (no network, the sandbox user): the least a first sandbox costs. */
async function dockerRunOnce(image: string): Promise<number> {
  const t0 = now();
  await exec('docker', ['run', '--rm', '--network', 'none', '--user', '10001:10001', image, 'python3', '-c', 'pass'], { timeout: DOCKER_RUN_TIMEOUT_MS });
  return now() - t0;
}

/**
 * A fresh process: connect, tools/list, then the first call at once or `ASSISTANT_GAP_MS` after connect. `call` is
 * the call's own time (what the goals compare), `fromSpawn` the time from the spawn to its answer.
 */
async function firstCall(atOnce: boolean): Promise<{ call: number; fromSpawn: number }> {
  return withHome((home) => firstCallOn(home, atOnce));
}

async function firstCallOn(home: string, atOnce: boolean): Promise<{ call: number; fromSpawn: number }> {
  const spawnedAt = now();
  const { spawned } = await spawnSandpitMcp(home);
  const connected = now();
  try {
    await spawned.client.listTools();
    if (!atOnce) await sleep(Math.max(0, ASSISTANT_GAP_MS - (now() - connected)));
    const call = await execute(spawned.client, '1+1', 'python', '2');
    return { call, fromSpawn: now() - spawnedAt };
  } finally {
    await spawned.close();
  }
}

/**
 * An assistant that starts `sandpit mcp` again: one runs a call, stays until its pools have filled, and quits
 * leaving its warm sandboxes; 1 s later the next one on the same data folder makes its first call (at once, or
 * `ASSISTANT_GAP_MS` after connect). That one leaves nothing, so every sandbox is gone after the round.
 */
async function firstCallTakenOver(atOnce: boolean): Promise<{ call: number; fromSpawn: number }> {
  return withHome(async (home) => {
    const { spawned: before } = await spawnSandpitMcp(home, true);
    try {
      await execute(before.client, '1+1', 'python', '2');
      await sleep(HANDOVER_SETTLE_MS);
    } finally {
      await before.close();
    }
    await sleep(1_000);
    return firstCallOn(home, atOnce);
  });
}

async function first(): Promise<FloorSummary['first']> {
  const image = await pythonImage();
  await dockerRunOnce(image);
  const atOnce: number[] = [];
  const atOnceFromSpawn: number[] = [];
  const afterGap: number[] = [];
  const dockerRun: number[] = [];
  const atOnceTakenOver: number[] = [];
  const afterGapTakenOver: number[] = [];
  for (let round = 0; round < FIRST_ROUNDS; round += 1) {
    dockerRun.push(await dockerRunOnce(image));
    const fresh = await firstCall(true);
    atOnce.push(fresh.call);
    atOnceFromSpawn.push(fresh.fromSpawn);
    afterGap.push((await firstCall(false)).call);
    atOnceTakenOver.push((await firstCallTakenOver(true)).call);
    afterGapTakenOver.push((await firstCallTakenOver(false)).call);
    progress(
      `floor: first call round ${round + 1}/${FIRST_ROUNDS}: at once ${formatMs(atOnce.at(-1) ?? NaN)} (${formatMs(atOnceFromSpawn.at(-1) ?? NaN)} from spawn), docker run ${formatMs(dockerRun.at(-1) ?? NaN)}, 1 s after connect ${formatMs(afterGap.at(-1) ?? NaN)}; ` +
        `taking over the last one's sandboxes: at once ${formatMs(atOnceTakenOver.at(-1) ?? NaN)}, 1 s after connect ${formatMs(afterGapTakenOver.at(-1) ?? NaN)}`,
    );
    await sleep(500);
  }
  return { atOnce: summarize(atOnce), atOnceFromSpawn: summarize(atOnceFromSpawn), afterGap: summarize(afterGap), dockerRun: summarize(dockerRun), atOnceTakenOver: summarize(atOnceTakenOver), afterGapTakenOver: summarize(afterGapTakenOver) };
}

/** The engine alone: `count` containers of the sandbox image under the session profile created and started, 8 at a time (per second). */
async function engineBurst(count: number): Promise<number> {
  const image = await pythonImage();
  const docker = new DockerodeClient({ logger: silentLogger });
  const run = randomUUID().slice(0, 8);
  const ids: string[] = [];
  const t0 = now();
  try {
    await mapLimit(Array.from({ length: count }, (_, i) => i), 8, async (i) => {
      const spec = hardenedContainerSpec({ name: `sandpit-bench-burst-${run}-${i}`, image, limits: DEFAULT_LIMITS, labels: { 'dev.sandpit.bench': run }, cmd: ['sleep', '600'] });
      spec.openStdin = false;
      const id = await docker.createContainer(spec);
      ids.push(id);
      await docker.startContainer(id);
    });
    return count / ((now() - t0) / 1000);
  } finally {
    await mapLimit(ids, 8, (id) => docker.removeContainer(id).catch(() => undefined));
  }
}

const load1 = (): number => Math.round((loadavg()[0] ?? 0) * 10) / 10;

/** Runs one part, noting the load average before and after it. */
async function part<T>(name: string, load: FloorSummary['load'], body: () => Promise<T>): Promise<T> {
  const before = load1();
  const value = await body();
  load[name] = [before, load1()];
  return value;
}

export async function run(): Promise<FloorSummary> {
  const load: FloorSummary['load'] = {};
  const w = await part('warm', load, warm);
  const clients = await part('clients', load, manyClients);
  const f = await part('first', load, first);
  progress('floor: 100 sessions at once, then the engine alone starting 100 containers');
  const many = await part('burst', load, manySessions);
  const enginePerSecond = await part('engine burst', load, () => engineBurst(many.sessions));
  const burst = { sessions: many.sessions, perSecond: many.sessionsPerSecond, memoryPerSessionMiB: many.memoryPerSessionMiB, fromPool: many.fromPool, enginePerSecond };

  const p99Ratio = Math.max(w.python.p99, w.javascript.p99) / w.trivial.p99;
  const clientsRatio = clients.four.p99 / clients.one.p99;
  process.stdout.write(`\n## the floor (issue 20): each figure beside its reference, in one run (${WARM_CALLS} warm calls, ${FIRST_ROUNDS} first-call rounds)\n`);
  process.stdout.write(
    `${table(LATENCY_HEADERS, [
      latencyRow('warm execute_code over stdio, Python', w.python),
      latencyRow('warm execute_code over stdio, JavaScript', w.javascript),
      latencyRow('  reference: the trivial SDK server', w.trivial),
      latencyRow('1 client (sandpit mcp)', clients.one),
      latencyRow('4 clients in parallel (4 sandpit mcp)', clients.four),
      latencyRow('  reference: trivial server, 1 client', clients.trivialOne),
      latencyRow('  reference: trivial server, 4 clients', clients.trivialFour),
      latencyRow('first execute_code sent at once after tools/list', f.atOnce),
      latencyRow('  the same from spawn (connect, tools/list, the call)', f.atOnceFromSpawn),
      latencyRow('  reference: one docker run --rm of the image', f.dockerRun),
      latencyRow(`first execute_code ${ASSISTANT_GAP_MS} ms after connect`, f.afterGap),
      latencyRow("first execute_code at once, the last sandpit mcp's sandboxes taken over", f.atOnceTakenOver),
      latencyRow(`first execute_code ${ASSISTANT_GAP_MS} ms after connect, taken over`, f.afterGapTakenOver),
    ])}\n`,
  );
  process.stdout.write(
    `server CPU per warm call: sandpit mcp ${formatMs(w.cpuPerCallMs.sandpit)}, trivial server ${formatMs(w.cpuPerCallMs.trivial)} (${formatRatio(w.cpuPerCallMs.sandpit / w.cpuPerCallMs.trivial)})\n` +
      `${burst.sessions} sessions at once: ${burst.perSecond.toFixed(1)} per second (${burst.fromPool} from the warm pool), ${formatMiB(burst.memoryPerSessionMiB * 1024 * 1024)} per idle session; ` +
      `the engine alone starting ${burst.sessions} containers of the image: ${burst.enginePerSecond.toFixed(1)} per second\n` +
      `load average (1 min) before → after each part: ${Object.entries(load).map(([name, [a, b]]) => `${name} ${a} → ${b}`).join(', ')}\n`,
  );
  const goals = [
    goal('warm execute_code over stdio p50 (Python / JavaScript)', '≤ 1 ms', `${formatMs(w.python.p50)} / ${formatMs(w.javascript.p50)}`, w.python.p50 <= 1 && w.javascript.p50 <= 1),
    goal('warm p99 over the trivial SDK server p99', '≤ 1.5×', `${formatRatio(p99Ratio)} (${formatMs(Math.max(w.python.p99, w.javascript.p99))} vs ${formatMs(w.trivial.p99)})`, p99Ratio <= 1.5),
    goal('first call at once (p50)', '≤ 400 ms', formatMs(f.atOnce.p50), f.atOnce.p50 <= 400),
    goal('first call at once over one docker run (p50)', '≤ 1×', `${formatRatio(f.atOnce.p50 / f.dockerRun.p50)} (${formatMs(f.dockerRun.p50)})`, f.atOnce.p50 <= f.dockerRun.p50),
    goal(`first call ${ASSISTANT_GAP_MS} ms after connect (p99)`, '≤ 15 ms', formatMs(f.afterGap.p99), f.afterGap.p99 <= 15),
    goal("first call at once, the last sandpit mcp's sandboxes taken over (p50)", '≤ 400 ms', formatMs(f.atOnceTakenOver.p50), f.atOnceTakenOver.p50 <= 400),
    goal('  the same over one docker run (p50)', '≤ 1×', `${formatRatio(f.atOnceTakenOver.p50 / f.dockerRun.p50)} (${formatMs(f.dockerRun.p50)})`, f.atOnceTakenOver.p50 <= f.dockerRun.p50),
    goal(`first call ${ASSISTANT_GAP_MS} ms after connect, taken over (p99)`, '≤ 15 ms', formatMs(f.afterGapTakenOver.p99), f.afterGapTakenOver.p99 <= 15),
    goal(`${burst.sessions} sessions at once`, '≥ 20 per s', `${burst.perSecond.toFixed(1)} per s (the engine alone: ${burst.enginePerSecond.toFixed(1)} per s)`, burst.perSecond >= 20),
    goal(`memory per idle session, ${burst.sessions} open`, '≤ 10 MiB', formatMiB(burst.memoryPerSessionMiB * 1024 * 1024), burst.memoryPerSessionMiB <= 10),
    goal('4 clients p99 over 1 client p99', '≤ 3×', `${formatRatio(clientsRatio)} (${formatMs(clients.four.p99)} vs ${formatMs(clients.one.p99)})`, clientsRatio <= 3),
  ];
  process.stdout.write(`${goalTable(goals)}\n`);
  return {
    warm: { python: roundDistribution(w.python), javascript: roundDistribution(w.javascript), trivial: roundDistribution(w.trivial), cpuPerCallMs: w.cpuPerCallMs },
    clients: { one: roundDistribution(clients.one), four: roundDistribution(clients.four), trivialOne: roundDistribution(clients.trivialOne), trivialFour: roundDistribution(clients.trivialFour) },
    first: {
      atOnce: roundDistribution(f.atOnce),
      atOnceFromSpawn: roundDistribution(f.atOnceFromSpawn),
      afterGap: roundDistribution(f.afterGap),
      dockerRun: roundDistribution(f.dockerRun),
      atOnceTakenOver: roundDistribution(f.atOnceTakenOver),
      afterGapTakenOver: roundDistribution(f.afterGapTakenOver),
    },
    burst,
    load,
    goals,
  };
}
