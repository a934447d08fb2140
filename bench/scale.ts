/**
 * Scale: (1) 100 sessions open at once on this machine — how fast they are made from the warm pool (with
 * its refills), and the memory of the whole (this core's process + every container's working set) per idle
 * session; (2) the cost of a growing audit log — with 10k, 100k and 1M rows (SANDPIT_BENCH_AUDIT_ROWS), a
 * fresh `sandpit serve` on that data folder: warm execute_code p50/p99 over the panel API, and the panel's
 * Activity first paint in Chromium.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Docker from 'dockerode';
import { chromium } from 'playwright-core';
import { chromiumLaunchOptions } from '../e2e/support/chromium';
import { callApi } from '../e2e/support/panel-api';
import { startServe } from '../e2e/support/serve-process';
import { resolveEndpoint } from '../src/core/docker/dockerode-client';
import { newSession } from '../src/test-support/sessions';
import type { SessionInfo } from '../src/shared/domain/session';
import { now, progress, pythonImage, sleep, waitForFullPool, withCore } from './harness';
import { readCgroup, readStatsApi } from './memory';
import { loadActivity } from './panel';
import { seedAuditLog } from './panel-seed';
import { LATENCY_HEADERS, formatMiB, formatMs, goal, goalTable, latencyRow, roundDistribution, summarize, table } from './stats';
import type { Distribution, Goal } from './stats';

const SESSIONS = Number(process.env.SANDPIT_BENCH_SCALE_SESSIONS) || 100;
const POOL_SIZE = 2;
const REST_MS = 3_000;
const AUDIT_LEVELS = (process.env.SANDPIT_BENCH_AUDIT_ROWS ?? '10000,100000,1000000').split(',').map(Number).filter((n) => n > 0).sort((a, b) => a - b);
const EXECUTE_CALLS = 200;
const PAINTS = 3;

export interface ScaleSummary {
  sessions: number;
  createMs: number;
  sessionsPerSecond: number;
  fromPool: number;
  memoryPerSessionMiB: number;
  containersMiB: number;
  coreMiB: number;
  audit: Array<{ rows: number; dbMiB: number; execute: Distribution; firstPaintMs: Distribution }>;
  goals: Goal[];
}

export async function manySessions(): Promise<Pick<ScaleSummary, 'sessions' | 'createMs' | 'sessionsPerSecond' | 'fromPool' | 'memoryPerSessionMiB' | 'containersMiB' | 'coreMiB'>> {
  return withCore({ poolSize: POOL_SIZE, maxSessions: SESSIONS + 10 }, async (sandpit) => {
    await waitForFullPool(sandpit, POOL_SIZE);
    const rssBefore = process.memoryUsage().rss;
    progress(`scale: creating ${SESSIONS} sessions, 8 at a time, from a warm pool of ${POOL_SIZE}`);
    const infos: SessionInfo[] = [];
    const t0 = now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < SESSIONS) {
          next += 1;
          infos.push(await newSession(sandpit, {}));
        }
      }),
    );
    const createMs = now() - t0;
    progress(`scale: ${SESSIONS} sessions in ${formatMs(createMs)}; resting ${REST_MS} ms, then reading memory`);
    await sleep(REST_MS);
    const api = new Docker(resolveEndpoint(sandpit.config.dockerHost).options);
    let containers = 0;
    for (const info of infos) containers += ((await readCgroup(info.containerId)) ?? (await readStatsApi(api, info.containerId))).workingSet;
    const core = Math.max(0, process.memoryUsage().rss - rssBefore);
    return {
      sessions: SESSIONS,
      createMs,
      sessionsPerSecond: SESSIONS / (createMs / 1000),
      fromPool: infos.filter((i) => i.fromPool).length,
      memoryPerSessionMiB: (containers + core) / SESSIONS / 1024 / 1024,
      containersMiB: containers / 1024 / 1024,
      coreMiB: core / 1024 / 1024,
    };
  });
}

async function auditGrowth(): Promise<ScaleSummary['audit']> {
  const home = await mkdtemp(join(tmpdir(), 'sandpit-bench-scale-audit-'));
  const logFile = resolve(__dirname, '..', 'reports', 'bench-scale-serve.log');
  const browser = await chromium.launch(chromiumLaunchOptions());
  const results: ScaleSummary['audit'] = [];
  let seeded = 0;
  try {
    for (const rows of AUDIT_LEVELS) {
      progress(`scale: audit log to ${rows} rows (adding ${rows - seeded})`);
      seedAuditLog(home, rows - seeded);
      seeded = rows;
      const dbBytes = (await stat(join(home, 'audit.db'))).size;
      const serve = await startServe({ home, pythonImage: await pythonImage(), logFile });
      try {
        const server = serve.info;
        const session = (await callApi(server, 'sessions.create', { language: 'python' })) as { id: string };
        for (let i = 0; i < 20; i++) await callApi(server, 'sessions.execute', { sessionId: session.id, code: '1+1' });
        const times: number[] = [];
        for (let i = 0; i < EXECUTE_CALLS; i++) {
          const t0 = now();
          await callApi(server, 'sessions.execute', { sessionId: session.id, code: '1+1' });
          times.push(now() - t0);
        }
        await loadActivity(browser, server);
        const paints: number[] = [];
        for (let i = 0; i < PAINTS; i++) paints.push((await loadActivity(browser, server)).firstRowFrame);
        const execute = roundDistribution(summarize(times));
        const firstPaintMs = roundDistribution(summarize(paints));
        progress(`scale: ${rows} rows: execute p50 ${formatMs(execute.p50)}, Activity first paint p50 ${formatMs(firstPaintMs.p50)}`);
        results.push({ rows, dbMiB: Math.round(dbBytes / 1024 / 1024), execute, firstPaintMs });
      } finally {
        await serve.stop();
      }
    }
  } finally {
    await browser.close();
    await rm(home, { recursive: true, force: true });
  }
  return results;
}

export async function run(): Promise<ScaleSummary> {
  const many = await manySessions();
  const audit = await auditGrowth();
  process.stdout.write(`\n## scale: ${many.sessions} sessions at once (warm pool of ${POOL_SIZE}, 8 creates in flight)\n`);
  process.stdout.write(
    `${table(
      ['', 'value'],
      [
        ['made in', formatMs(many.createMs)],
        ['sessions per second', many.sessionsPerSecond.toFixed(1)],
        ['of them from the warm pool', String(many.fromPool)],
        ['memory per idle session (containers + core)', formatMiB(many.memoryPerSessionMiB * 1024 * 1024)],
        ['  all containers (working set)', formatMiB(many.containersMiB * 1024 * 1024)],
        ['  the core process grew by', formatMiB(many.coreMiB * 1024 * 1024)],
      ],
      ['l', 'r'],
    )}\n`,
  );
  process.stdout.write(`\n## scale: a growing audit log (fresh sandpit serve each time; execute over the panel API, ${EXECUTE_CALLS} calls)\n`);
  process.stdout.write(
    `${table(
      [...LATENCY_HEADERS],
      audit.flatMap((a) => [latencyRow(`${a.rows} rows (${a.dbMiB} MiB): execute`, a.execute), latencyRow(`${a.rows} rows: Activity first paint`, a.firstPaintMs)]),
    )}\n`,
  );
  const first = audit[0];
  const last = audit.at(-1);
  const goals = [
    goal(`memory per idle session, ${many.sessions} open`, '≤ 15 MiB', formatMiB(many.memoryPerSessionMiB * 1024 * 1024), many.memoryPerSessionMiB <= 15),
    goal(`creating ${many.sessions} sessions`, '≥ 20 sessions/s', `${many.sessionsPerSecond.toFixed(1)}/s`, many.sessionsPerSecond >= 20),
    ...(first && last && last !== first
      ? [
          goal(`execute p50, ${first.rows} → ${last.rows} audit rows`, 'flat (≤ 1.5×)', `${formatMs(first.execute.p50)} → ${formatMs(last.execute.p50)}`, last.execute.p50 <= 1.5 * first.execute.p50),
          goal(`Activity first paint, ${first.rows} → ${last.rows} rows`, 'flat (≤ 1.5×)', `${formatMs(first.firstPaintMs.p50)} → ${formatMs(last.firstPaintMs.p50)}`, last.firstPaintMs.p50 <= 1.5 * first.firstPaintMs.p50),
        ]
      : []),
  ];
  process.stdout.write(`${goalTable(goals)}\n`);
  return { ...many, audit, goals };
}
