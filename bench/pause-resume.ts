/**
 * Pause → resume: an idle session paused (its container stopped, workspace and packages kept), then the next
 * `1+1` — which resumes it (container started, agent handshake) and runs. Also a kept session across a real
 * restart of the core on the same data folder: core start → first result of the resumed session.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandpit } from '../src/core/app';
import type { Sandpit } from '../src/core/app';
import { defaultConfig } from '../src/core/config';
import { silentLogger } from '../src/core/log';
import { now, progress, pythonImage, withCore } from './harness';
import { LATENCY_HEADERS, formatMs, goal, goalTable, latencyRow, roundDistribution, summarize, table } from './stats';
import type { Distribution, Goal } from './stats';
import { newSession } from '../src/test-support/sessions';

const N = 20;
const RESTARTS = 5;

export interface PauseResumeSummary {
  n: number;
  channel: string;
  pause: Distribution;
  /** The engine part alone: container start + agent handshake (the session.resumed event's duration). */
  resume: Distribution;
  /** What a caller waits: the call that finds the session paused, until its result. */
  resumeAndFirstResult: Distribution;
  afterRestart: { n: number; coreStart: Distribution; firstResult: Distribution };
  goals: Goal[];
}

async function firstResult(sandpit: Sandpit, sessionId: string): Promise<number> {
  const t0 = now();
  const r = await sandpit.sessions.session(sessionId).execute('1+1');
  const t1 = now();
  if (r.result !== '2' || !r.stateLost) throw new Error(`the resumed 1+1 gave ${JSON.stringify(r.result)} (${r.status}, stateLost ${String(r.stateLost)})`);
  return t1 - t0;
}

export async function run(): Promise<PauseResumeSummary> {
  const pauses: number[] = [];
  const resumes: number[] = [];
  const calls: number[] = [];
  const channel = await withCore({ poolSize: 0 }, async (sandpit) => {
    const info = await newSession(sandpit, {});
    const session = sandpit.sessions.session(info.id);
    sandpit.bus.on('session.resumed', (e) => {
      if (e.sessionId === info.id) resumes.push(e.durationMs);
    });
    progress(`pause-resume: channel ${sandpit.sessions.channelKind}, 1 warm-up + ${N} rounds`);
    await session.pause('idle');
    await firstResult(sandpit, info.id); // warm-up
    resumes.length = 0;
    for (let i = 0; i < N; i++) {
      const t0 = now();
      if (!(await session.pause('idle'))) throw new Error('the session did not pause');
      pauses.push(now() - t0);
      calls.push(await firstResult(sandpit, info.id));
      progress(`pause-resume: ${i + 1}/${N}: pause ${formatMs(pauses[i] ?? NaN)}, resume + 1+1 ${formatMs(calls[i] ?? NaN)}`);
    }
    return sandpit.sessions.channelKind;
  });

  // Across a real restart: dispose the core (the kept session's container stops), start a new one on the same folder.
  const coreStarts: number[] = [];
  const afterRestart: number[] = [];
  const home = await mkdtemp(join(tmpdir(), 'sandpit-bench-kept-'));
  const config = defaultConfig({ home, poolSize: 0, images: { python: await pythonImage() } });
  let sandpit: Sandpit | undefined = await createSandpit(config, { logger: silentLogger });
  try {
    const info = await newSession(sandpit, { keep: true });
    for (let i = 0; i < RESTARTS; i++) {
      await sandpit.dispose();
      sandpit = undefined;
      const t0 = now();
      sandpit = await createSandpit(config, { logger: silentLogger });
      coreStarts.push(now() - t0);
      afterRestart.push(await firstResult(sandpit, info.id));
      progress(`pause-resume: restart ${i + 1}/${RESTARTS}: core start ${formatMs(coreStarts[i] ?? NaN)}, first result ${formatMs(afterRestart[i] ?? NaN)}`);
    }
    await sandpit.sessions.stop(info.id);
  } finally {
    await sandpit?.dispose();
    await rm(home, { recursive: true, force: true });
  }

  const pause = summarize(pauses);
  const resume = summarize(resumes);
  const call = summarize(calls);
  const coreStart = summarize(coreStarts);
  const restartFirst = summarize(afterRestart);
  process.stdout.write(`\n## pause → resume (channel ${channel}; N=${N}; after a restart N=${RESTARTS})\n`);
  process.stdout.write(
    `${table(
      [...LATENCY_HEADERS],
      [
        latencyRow('pause (container stopped)', pause),
        latencyRow('resume (start + handshake)', resume),
        latencyRow('paused → first 1+1 result', call),
        latencyRow('restart: core start', coreStart),
        latencyRow('restart: first 1+1 of the kept session', restartFirst),
      ],
    )}\n`,
  );
  const goals = [goal('pause-resume: paused → first result p50', '≤ 1 s', formatMs(call.p50), call.p50 <= 1_000), goal('pause-resume: paused → first result p99', '≤ 1 s', formatMs(call.p99), call.p99 <= 1_000)];
  process.stdout.write(`${goalTable(goals)}\n`);
  return {
    n: N,
    channel,
    pause: roundDistribution(pause),
    resume: roundDistribution(resume),
    resumeAndFirstResult: roundDistribution(call),
    afterRestart: { n: RESTARTS, coreStart: roundDistribution(coreStart), firstResult: roundDistribution(restartFirst) },
    goals,
  };
}
