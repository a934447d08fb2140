/**
 * Startup: a cold session (new container, poolSize 0) vs a warm-pool claim (poolSize 2, pool full),
 * each timed from `sessions.create()` to the first result of `1+1`, split into create and first run.
 */
import type { Sandpit } from '../src/core/app';
import { now, progress, waitForFullPool, withCore } from './harness';
import { LATENCY_HEADERS, formatMs, formatRatio, goal, goalTable, latencyRow, roundDistribution, summarize, table } from './stats';
import type { Distribution, Goal } from './stats';
import { newSession } from '../src/test-support/sessions';

const N = 15;
const POOL_SIZE = 2;

interface Sample {
  total: number;
  create: number;
  firstRun: number;
  fromPool: boolean;
}

export interface StartupSummary {
  n: number;
  channel: string;
  cold: { total: Distribution; create: Distribution; firstRun: Distribution };
  warm: { total: Distribution; claim: Distribution; firstRun: Distribution; refillWaitMs: Distribution; notFromPool: number };
  ratioColdWarmP50: number;
  goals: Goal[];
}

async function startOnce(sandpit: Sandpit): Promise<Sample> {
  const t0 = now();
  const info = await newSession(sandpit, {});
  const t1 = now();
  const result = await sandpit.sessions.session(info.id).execute('1+1');
  const t2 = now();
  if (result.result !== '2') throw new Error(`1+1 gave ${JSON.stringify(result.result)} (${result.status})`);
  await sandpit.sessions.stop(info.id);
  return { total: t2 - t0, create: t1 - t0, firstRun: t2 - t1, fromPool: info.fromPool };
}

export async function run(): Promise<StartupSummary> {
  const cold: Sample[] = [];
  const channel = await withCore({ poolSize: 0 }, async (sandpit) => {
    progress(`startup: cold, channel ${sandpit.sessions.channelKind}, 1 warm-up + ${N} runs`);
    await startOnce(sandpit); // warm-up: first container after an image build pays page-cache misses
    for (let i = 0; i < N; i++) {
      cold.push(await startOnce(sandpit));
      progress(`startup: cold ${i + 1}/${N}: ${formatMs(cold[i]?.total ?? NaN)}`);
    }
    return sandpit.sessions.channelKind;
  });

  const warm: Sample[] = [];
  const refillWaits: number[] = [];
  await withCore({ poolSize: POOL_SIZE }, async (sandpit) => {
    progress(`startup: warm, pool of ${POOL_SIZE}; waiting for it to fill`);
    refillWaits.push(await waitForFullPool(sandpit, POOL_SIZE));
    await startOnce(sandpit); // warm-up claim
    for (let i = 0; i < N; i++) {
      refillWaits.push(await waitForFullPool(sandpit, POOL_SIZE));
      const sample = await startOnce(sandpit);
      warm.push(sample);
      progress(`startup: warm ${i + 1}/${N}: ${formatMs(sample.total)} (claim ${formatMs(sample.create)}, first run ${formatMs(sample.firstRun)})${sample.fromPool ? '' : ' NOT FROM POOL'}`);
    }
  });

  const d = (xs: Sample[], key: 'total' | 'create' | 'firstRun'): Distribution => summarize(xs.map((s) => s[key]));
  const coldTotal = d(cold, 'total');
  const warmTotal = d(warm, 'total');
  const ratio = coldTotal.p50 / warmTotal.p50;
  const notFromPool = warm.filter((s) => !s.fromPool).length;

  process.stdout.write(`\n## startup (create → first result of 1+1; channel ${channel}; N=${N}, p99 of ${N} = max)\n`);
  process.stdout.write(
    `${table(
      [...LATENCY_HEADERS],
      [
        latencyRow('cold total', coldTotal),
        latencyRow('  cold create', d(cold, 'create')),
        latencyRow('  cold first run', d(cold, 'firstRun')),
        latencyRow('warm total', warmTotal),
        latencyRow('  warm claim', d(warm, 'create')),
        latencyRow('  warm first run', d(warm, 'firstRun')),
      ],
    )}\n`,
  );
  process.stdout.write(`cold/warm at p50: ${formatRatio(ratio)}; claims not served by the pool: ${notFromPool}/${N}; pool refill wait p50 ${formatMs(summarize(refillWaits.slice(1)).p50)}\n`);
  const goals = [
    goal('startup: warm p50', '≤ 10 ms', formatMs(warmTotal.p50), warmTotal.p50 <= 10),
    goal('startup: cold/warm p50', '≥ 50×', formatRatio(ratio), ratio >= 50),
  ];
  process.stdout.write(`${goalTable(goals)}\n`);

  return {
    n: N,
    channel,
    cold: { total: roundDistribution(coldTotal), create: roundDistribution(d(cold, 'create')), firstRun: roundDistribution(d(cold, 'firstRun')) },
    warm: {
      total: roundDistribution(warmTotal),
      claim: roundDistribution(d(warm, 'create')),
      firstRun: roundDistribution(d(warm, 'firstRun')),
      refillWaitMs: roundDistribution(summarize(refillWaits.slice(1))),
      notFromPool,
    },
    ratioColdWarmP50: Math.round(ratio * 10) / 10,
    goals,
  };
}
