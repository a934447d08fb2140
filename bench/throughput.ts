/**
 * Throughput: 1, 4 and 16 sessions in parallel, each running a short snippet back to back for ~5 s
 * through the engine API (maxConcurrentRuns 16). Runs per second and per-run latency per level.
 */
import { availableParallelism } from 'node:os';
import { mapLimit, now, progress, withCore } from './harness';
import { formatMs, roundDistribution, summarize, table } from './stats';
import type { Distribution } from './stats';
import { newSession } from '../src/test-support/sessions';

const LEVELS = [1, 4, 16] as const;
const DURATION_MS = 5_000;
const SNIPPET = 'sum(range(1000))';
const EXPECTED = String((999 * 1000) / 2);

export interface ThroughputLevel {
  sessions: number;
  runs: number;
  seconds: number;
  runsPerSecond: number;
  latency: Distribution;
}

export interface ThroughputSummary {
  snippet: string;
  durationMs: number;
  hostCpus: number;
  levels: ThroughputLevel[];
}

export async function run(): Promise<ThroughputSummary> {
  const levels: ThroughputLevel[] = [];
  await withCore({ poolSize: 0, maxConcurrentRuns: 16, maxSessions: 32 }, async (sandpit) => {
    for (const level of LEVELS) {
      progress(`throughput: starting ${level} session(s)`);
      const ids = await mapLimit(Array.from({ length: level }), 4, async () => (await newSession(sandpit, {})).id);
      try {
        await Promise.all(ids.map((id) => sandpit.sessions.session(id).execute(SNIPPET))); // warm-up
        progress(`throughput: ${level} session(s) × ${DURATION_MS / 1000} s of ${SNIPPET}`);
        const latencies: number[] = [];
        const started = now();
        const deadline = started + DURATION_MS;
        let finished = started;
        await Promise.all(
          ids.map(async (id) => {
            while (now() < deadline) {
              const t0 = now();
              const result = await sandpit.sessions.session(id).execute(SNIPPET);
              const t1 = now();
              if (result.result !== EXPECTED) throw new Error(`${SNIPPET} gave ${JSON.stringify(result.result)} (${result.status})`);
              latencies.push(t1 - t0);
              finished = Math.max(finished, t1);
            }
          }),
        );
        const seconds = (finished - started) / 1000;
        const latency = summarize(latencies);
        levels.push({ sessions: level, runs: latencies.length, seconds: Math.round(seconds * 1000) / 1000, runsPerSecond: Math.round(latencies.length / seconds), latency: roundDistribution(latency) });
      } finally {
        await mapLimit(ids, 4, (id) => sandpit.sessions.stop(id).catch(() => undefined));
      }
    }
  });

  const cpus = availableParallelism();
  process.stdout.write(`\n## throughput (${SNIPPET} back to back per session, ~${DURATION_MS / 1000} s per level, engine API, host CPUs: ${cpus})\n`);
  process.stdout.write(
    `${table(
      ['sessions', 'runs', 'runs/s', 'p50', 'p99', 'mean', 'max'],
      levels.map((l) => [String(l.sessions), String(l.runs), String(l.runsPerSecond), formatMs(l.latency.p50), formatMs(l.latency.p99), formatMs(l.latency.mean), formatMs(l.latency.max)]),
    )}\n`,
  );
  return { snippet: SNIPPET, durationMs: DURATION_MS, hostCpus: cpus, levels };
}
