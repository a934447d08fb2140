/**
 * Isolation: the cost of Strong isolation (gVisor, runsc) against Standard (runc), measured in one run.
 * Cold start (create → first `1+1` result, no pool), warm-pool claim (pool of 2, full) and the `1+1`
 * round trip on a live session. Runs of the two levels are interleaved so background noise hits both alike.
 * Under gVisor the channel is attach (its sandboxes cannot share a unix socket with the host), so the
 * round trip is compared both with runc on attach (same channel: the runtime's cost alone) and with runc on
 * its default channel (what a user switching level sees).
 */
import type { Sandpit } from '../src/core/app';
import type { Isolation } from '../src/shared/domain/isolation';
import { newSession } from '../src/test-support/sessions';
import { now, progress, waitForFullPool, withCore } from './harness';
import { LATENCY_HEADERS, formatMs, formatRatio, latencyRow, roundDistribution, summarize, table } from './stats';
import type { Distribution, Goal } from './stats';

const N_COLD = 10;
const N_WARM = 10;
const N_ROUND_TRIP = 200;
const WARMUP_ROUND_TRIP = 20;
const POOL_SIZE = 2;

export interface IsolationSummary {
  cold: Record<Isolation, Distribution>;
  warm: Record<Isolation, Distribution>;
  roundTrip: { runcSocket: Distribution; runcAttach: Distribution; gvisorAttach: Distribution };
  /** gVisor p50 / runc p50 (round trip: against runc on the same attach channel, and on its default channel). */
  ratios: { cold: number; warm: number; roundTripSameChannel: number; roundTripDefaultChannel: number };
  notFromPool: number;
  goals: Goal[];
}

async function startOnce(sandpit: Sandpit, isolation: Isolation): Promise<{ total: number; fromPool: boolean }> {
  const t0 = now();
  const info = await newSession(sandpit, {});
  const result = await sandpit.sessions.session(info.id).execute('1+1');
  const total = now() - t0;
  if (result.result !== '2') throw new Error(`1+1 gave ${JSON.stringify(result.result)} (${result.status})`);
  if (info.isolation !== isolation) throw new Error(`asked for ${isolation} isolation, the session has ${info.isolation}`);
  await sandpit.sessions.stop(info.id);
  return { total, fromPool: info.fromPool };
}

async function roundTrip(sandpit: Sandpit, sessionId: string): Promise<number> {
  const t0 = now();
  const result = await sandpit.sessions.session(sessionId).execute('1+1');
  const elapsed = now() - t0;
  if (result.result !== '2') throw new Error(`1+1 gave ${JSON.stringify(result.result)}`);
  return elapsed;
}

/** Two cores, one per isolation level, open at once. */
function withBoth<T>(overrides: { poolSize: number; channel?: 'socket' | 'attach' }, body: (runc: Sandpit, gvisor: Sandpit) => Promise<T>): Promise<T> {
  return withCore({ ...overrides, defaultIsolation: 'standard' }, (runc) => withCore({ ...overrides, defaultIsolation: 'strong' }, (gvisor) => body(runc, gvisor)));
}

export async function run(): Promise<IsolationSummary> {
  const cold: Record<Isolation, number[]> = { standard: [], strong: [] };
  await withBoth({ poolSize: 0 }, async (runc, gvisor) => {
    progress(`isolation: cold starts, 1 warm-up + ${N_COLD} each, interleaved`);
    await startOnce(runc, 'standard');
    await startOnce(gvisor, 'strong');
    for (let i = 0; i < N_COLD; i++) {
      cold.standard.push((await startOnce(runc, 'standard')).total);
      cold.strong.push((await startOnce(gvisor, 'strong')).total);
      progress(`isolation: cold ${i + 1}/${N_COLD}: runc ${formatMs(cold.standard[i] ?? NaN)}, gVisor ${formatMs(cold.strong[i] ?? NaN)}`);
    }
  });

  const warm: Record<Isolation, number[]> = { standard: [], strong: [] };
  let notFromPool = 0;
  await withBoth({ poolSize: POOL_SIZE }, async (runc, gvisor) => {
    progress(`isolation: warm claims, pools of ${POOL_SIZE}; waiting for them to fill`);
    for (const [core, level] of [[runc, 'standard'], [gvisor, 'strong']] as const) {
      await waitForFullPool(core, POOL_SIZE);
      await startOnce(core, level);
    }
    for (let i = 0; i < N_WARM; i++) {
      for (const [core, level] of [[runc, 'standard'], [gvisor, 'strong']] as const) {
        await waitForFullPool(core, POOL_SIZE);
        const sample = await startOnce(core, level);
        if (!sample.fromPool) notFromPool += 1;
        warm[level].push(sample.total);
      }
      progress(`isolation: warm ${i + 1}/${N_WARM}: runc ${formatMs(warm.standard[i] ?? NaN)}, gVisor ${formatMs(warm.strong[i] ?? NaN)}`);
    }
  });

  const rt = { runcSocket: [] as number[], runcAttach: [] as number[], gvisorAttach: [] as number[] };
  await withCore({ poolSize: 0, defaultIsolation: 'standard', channel: 'socket' }, (runcSocket) =>
    withBoth({ poolSize: 0, channel: 'attach' }, async (runcAttach, gvisor) => {
      progress(`isolation: round trip, ${WARMUP_ROUND_TRIP} warm-up + ${N_ROUND_TRIP} each, round-robin`);
      const sessions = [
        { key: 'runcSocket', core: runcSocket, id: (await newSession(runcSocket, {})).id, channel: 'socket' },
        { key: 'runcAttach', core: runcAttach, id: (await newSession(runcAttach, {})).id, channel: 'attach' },
        { key: 'gvisorAttach', core: gvisor, id: (await newSession(gvisor, {})).id, channel: 'attach' },
      ] as const;
      for (const s of sessions) {
        const channel = s.core.sessions.session(s.id).info().channel;
        if (channel !== s.channel) throw new Error(`${s.key}: the session's channel is ${channel}, not ${s.channel}`);
      }
      for (let i = 0; i < WARMUP_ROUND_TRIP + N_ROUND_TRIP; i++) {
        for (const s of sessions) {
          const elapsed = await roundTrip(s.core, s.id);
          if (i >= WARMUP_ROUND_TRIP) rt[s.key].push(elapsed);
        }
      }
    }),
  );

  const coldD = { standard: summarize(cold.standard), strong: summarize(cold.strong) };
  const warmD = { standard: summarize(warm.standard), strong: summarize(warm.strong) };
  const rtD = { runcSocket: summarize(rt.runcSocket), runcAttach: summarize(rt.runcAttach), gvisorAttach: summarize(rt.gvisorAttach) };
  const ratios = {
    cold: coldD.strong.p50 / coldD.standard.p50,
    warm: warmD.strong.p50 / warmD.standard.p50,
    roundTripSameChannel: rtD.gvisorAttach.p50 / rtD.runcAttach.p50,
    roundTripDefaultChannel: rtD.gvisorAttach.p50 / rtD.runcSocket.p50,
  };

  process.stdout.write(`\n## isolation (gVisor vs runc; cold N=${N_COLD}, warm N=${N_WARM}, round trip N=${N_ROUND_TRIP}; p99 of small N = max)\n`);
  process.stdout.write(
    `${table(
      [...LATENCY_HEADERS],
      [
        latencyRow('cold start, runc', coldD.standard),
        latencyRow('cold start, gVisor', coldD.strong),
        latencyRow('warm claim → 1+1, runc', warmD.standard),
        latencyRow('warm claim → 1+1, gVisor', warmD.strong),
        latencyRow('1+1, runc, socket (default)', rtD.runcSocket),
        latencyRow('1+1, runc, attach', rtD.runcAttach),
        latencyRow('1+1, gVisor, attach', rtD.gvisorAttach),
      ],
    )}\n`,
  );
  process.stdout.write(
    `gVisor/runc at p50: cold ${formatRatio(ratios.cold)}, warm ${formatRatio(ratios.warm)}, 1+1 ${formatRatio(ratios.roundTripSameChannel)} on the same channel (attach), ${formatRatio(ratios.roundTripDefaultChannel)} against runc's default (socket); claims not served by a pool: ${notFromPool}/${2 * N_WARM}\n`,
  );
  // No stated goal for gVisor's cost: the figures are reported (the README's Measured table).
  const goals: Goal[] = [];

  const round1 = (x: number): number => Math.round(x * 100) / 100;
  return {
    cold: { standard: roundDistribution(coldD.standard), strong: roundDistribution(coldD.strong) },
    warm: { standard: roundDistribution(warmD.standard), strong: roundDistribution(warmD.strong) },
    roundTrip: { runcSocket: roundDistribution(rtD.runcSocket), runcAttach: roundDistribution(rtD.runcAttach), gvisorAttach: roundDistribution(rtD.gvisorAttach) },
    ratios: { cold: round1(ratios.cold), warm: round1(ratios.warm), roundTripSameChannel: round1(ratios.roundTripSameChannel), roundTripDefaultChannel: round1(ratios.roundTripDefaultChannel) },
    notFromPool,
    goals,
  };
}
