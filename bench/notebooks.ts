/**
 * Notebooks and replay: how long `audit.notebook` takes for a session of RUNS recorded runs (from the audit
 * log, as an ended session's is made), and how long a replay of a session takes per run compared with the
 * original runs (a replay also starts a fresh sandbox and compares every output).
 */
import type { Sandpit } from '../src/core/app';
import { call } from '../src/core/api/dispatcher';
import type { CallContext } from '../src/core/api/api-types';
import type { ReplayView } from '../src/shared/domain/replay';
import { pollUntil } from '../src/core/util/with-timeout';
import { now, progress, withCore } from './harness';
import { LATENCY_HEADERS, formatMs, latencyRow, roundDistribution, summarize, table } from './stats';
import type { Distribution } from './stats';

const RUNS = 200;
const NOTEBOOK_ROUNDS = 10;
const REPLAY_RUNS = 20;
const PANEL: CallContext = { transport: 'internal' };

export interface NotebooksSummary {
  runs: number;
  notebook: Distribution;
  notebookBytes: number;
  replayRuns: number;
  originalRuns: Distribution;
  replayTotalMs: number;
  replayPerRunMs: number;
}

async function recordSession(sandpit: Sandpit, runs: number): Promise<{ sessionId: string; times: number[] }> {
  const sessionId = (await call(sandpit.api, 'sessions.create', {}, PANEL)).id;
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const t0 = now();
    await call(sandpit.api, 'sessions.execute', { sessionId, code: `x = ${i}\nprint("line", x)\nx * 2` }, PANEL);
    times.push(now() - t0);
  }
  await sandpit.sessions.stop(sessionId);
  return { sessionId, times };
}

export async function run(): Promise<NotebooksSummary> {
  return withCore({}, async (sandpit) => {
    progress(`notebooks: recording a session of ${RUNS} runs`);
    const big = await recordSession(sandpit, RUNS);
    const samples: number[] = [];
    let bytes = 0;
    for (let i = 0; i < NOTEBOOK_ROUNDS; i += 1) {
      const t0 = now();
      const notebook = await call(sandpit.api, 'audit.notebook', { sessionId: big.sessionId }, PANEL);
      samples.push(now() - t0);
      bytes = Buffer.byteLength(notebook.content);
    }
    progress(`notebooks: replaying a session of ${REPLAY_RUNS} runs`);
    const small = await recordSession(sandpit, REPLAY_RUNS);
    const t0 = now();
    const started = await call(sandpit.api, 'audit.replay', { sessionId: small.sessionId }, PANEL);
    let last: ReplayView | undefined;
    const off = sandpit.bus.on('replay.updated', (view) => {
      if (view.id === started.id) last = view;
    });
    try {
      await pollUntil(() => (last && (last.state === 'done' || last.state === 'failed') ? last : undefined), 300_000, 'the replay to end', 20);
    } finally {
      off();
    }
    const replayTotalMs = now() - t0;
    if (last?.state !== 'done' || last.runs.some((r) => r.outcome !== 'matched')) throw new Error(`The replay did not match every run: ${JSON.stringify(last?.runs.map((r) => r.outcome))}`);
    const summary: NotebooksSummary = {
      runs: RUNS,
      notebook: roundDistribution(summarize(samples)),
      notebookBytes: bytes,
      replayRuns: REPLAY_RUNS,
      originalRuns: roundDistribution(summarize(small.times)),
      replayTotalMs: Math.round(replayTotalMs),
      replayPerRunMs: Math.round((replayTotalMs / REPLAY_RUNS) * 10) / 10,
    };
    process.stdout.write(`\n## notebooks and replay\n`);
    process.stdout.write(`${table([...LATENCY_HEADERS], [latencyRow(`audit.notebook, ${RUNS} runs (${Math.round(bytes / 1024)} KiB)`, summary.notebook), latencyRow('one original run (execute)', summary.originalRuns)])}\n`);
    process.stdout.write(`replay of ${REPLAY_RUNS} runs: ${formatMs(summary.replayTotalMs)} in all (fresh sandbox included), ${formatMs(summary.replayPerRunMs)} per run\n`);
    return summary;
  });
}
