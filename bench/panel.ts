/**
 * Panel: a real `sandpit serve` (child process) with an audit log of 10,000 rows, driven in Debian's
 * Chromium. (1) Activity: navigation start → the first table row painted, over 5 fresh loads (the page
 * clicks "Activity" itself as soon as it is connected). (2) A run streams 1 MiB of stdout while its session
 * page is open: the time between animation frames during the stream (p50, p99, longest).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { chromiumLaunchOptions } from '../e2e/support/chromium';
import { callApi } from '../e2e/support/panel-api';
import { startServe } from '../e2e/support/serve-process';
import type { ServerInfo } from '../e2e/support/server-info';
import { now, progress, pythonImage } from './harness';
import { ACTIVITY_PROBE, START_FRAME_RECORDER, STOP_FRAME_RECORDER } from './panel-probes';
import type { ActivityMarks } from './panel-probes';
import { seedAuditLog } from './panel-seed';
import { LATENCY_HEADERS, formatMs, latencyRow, roundDistribution, summarize, table } from './stats';
import type { Distribution } from './stats';

const AUDIT_ROWS = 10_000;
const LOADS = 5;
const STREAM_BYTES = 1024 * 1024;
const LINE = 64; // bytes per printed line, newline included
const VIEWPORT = { width: 1280, height: 860 };
const PACE_WORDS: Record<Pace, string> = { burst: '(burst)', paced: '(16 KiB / 50 ms)' };

export interface PanelSummary {
  auditRows: number;
  seedMs: number;
  activity: {
    loads: number;
    firstRowPaintMs: Distribution;
    readyMs: Distribution;
    clickToFirstRowMs: Distribution;
    auditListMs: Distribution;
    auditVerifyMs: Distribution;
  };
  stream: StreamResult[];
}

export interface StreamResult {
  pace: Pace;
  bytes: number;
  runMs: number;
  /** From the run's answer to the console showing it finished. */
  consoleCaughtUpMs: number;
  frames: number;
  frameMs: Distribution;
  longestFrameMs: number;
  framesOver50ms: number;
  /** stdout characters in the console at the end. */
  consoleChars: number;
}

async function openPanel(page: Page, server: ServerInfo): Promise<void> {
  await page.goto(`${server.url}/#token=${server.panelToken}`);
  await page.locator('[data-testid="app"][data-connection="ready"]').waitFor({ timeout: 60_000 });
}

/** One fresh load of the panel that goes straight to Activity; the probe's marks. */
export async function loadActivity(browser: Browser, server: ServerInfo): Promise<Required<ActivityMarks>> {
  const context = await browser.newContext({ viewport: VIEWPORT });
  try {
    await context.addInitScript({ content: ACTIVITY_PROBE });
    const page = await context.newPage();
    await page.goto(`${server.url}/#token=${server.panelToken}`);
    // Polled from here (the panel's CSP forbids the string predicates waitForFunction evaluates in the page).
    const deadline = Date.now() + 60_000;
    let marks = await page.evaluate<ActivityMarks>('window.__sandpitBench');
    while (marks.firstRowFrame === undefined && Date.now() < deadline) {
      await page.waitForTimeout(50);
      marks = await page.evaluate<ActivityMarks>('window.__sandpitBench');
    }
    if (marks.ready === undefined || marks.firstRow === undefined || marks.firstRowFrame === undefined) throw new Error(`incomplete marks ${JSON.stringify(marks)}`);
    return { ready: marks.ready, firstRow: marks.firstRow, firstRowFrame: marks.firstRowFrame };
  } finally {
    await context.close();
  }
}

/** How the run writes: as fast as it can, or 16 KiB every 50 ms (about 3 s for 1 MiB). */
export type Pace = 'burst' | 'paced';

function streamCode(bytes: number, pace: Pace): string {
  const lines = Math.floor(bytes / LINE);
  return [
    'import sys, time',
    `line = "x" * ${LINE - 1} + "\\n"`,
    `for i in range(${lines}):`,
    '    sys.stdout.write(line)',
    '    if i % 256 == 255:',
    '        sys.stdout.flush()',
    ...(pace === 'paced' ? ['        time.sleep(0.05)'] : []),
    'sys.stdout.flush()',
  ].join('\n');
}

/** Opens a session's page, then streams `bytes` of stdout into it while recording frame times. */
async function streamWhileWatching(browser: Browser, server: ServerInfo, bytes: number, pace: Pace): Promise<StreamResult> {
  const session = (await callApi(server, 'sessions.create', { language: 'python', limits: { outputBytes: 4 * bytes } })) as { id: string };
  const context = await browser.newContext({ viewport: VIEWPORT });
  try {
    const page = await context.newPage();
    await openPanel(page, server);
    await page.locator(`[data-testid="session-row"][data-session-id="${session.id}"] [data-testid="session-open"]`).click();
    await page.locator(`[data-testid="session-page"][data-session-id="${session.id}"]`).waitFor();
    await page.evaluate(START_FRAME_RECORDER);
    const t0 = now();
    const result = (await callApi(server, 'sessions.execute', { sessionId: session.id, code: streamCode(bytes, pace), timeoutMs: 120_000 })) as {
      status: string;
      stdout: string;
    };
    const runMs = now() - t0;
    if (result.status !== 'ok') throw new Error(`the streaming run ended ${result.status}`);
    await page.getByTestId('console-done').first().waitFor({ timeout: 60_000 });
    const consoleCaughtUpMs = now() - t0 - runMs;
    await page.waitForTimeout(250);
    const deltas = await page.evaluate<number[]>(STOP_FRAME_RECORDER);
    const consoleChars = await page.evaluate<number>(
      `[...document.querySelectorAll('[data-testid="console-stdout"]')].reduce((n, el) => n + el.textContent.length, 0)`,
    );
    const frameMs = summarize(deltas);
    return {
      pace,
      bytes,
      runMs,
      consoleCaughtUpMs,
      frames: deltas.length,
      frameMs: roundDistribution(frameMs),
      longestFrameMs: frameMs.max,
      framesOver50ms: deltas.filter((d) => d > 50).length,
      consoleChars,
    };
  } finally {
    await context.close();
    await callApi(server, 'sessions.stop', { sessionId: session.id }).catch(() => undefined);
  }
}

/** Server-side share of the Activity screen: the two calls it makes when it opens, timed from here. */
async function timeApi(server: ServerInfo, method: string, input: unknown, n: number): Promise<Distribution> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = now();
    await callApi(server, method, input);
    times.push(now() - t0);
  }
  return summarize(times);
}

export async function run(): Promise<PanelSummary> {
  const home = await mkdtemp(join(tmpdir(), 'sandpit-bench-panel-'));
  const logFile = resolve(__dirname, '..', 'reports', 'bench-panel-serve.log');
  let serve: Awaited<ReturnType<typeof startServe>> | undefined;
  let browser: Browser | undefined;
  try {
    progress(`panel: writing ${AUDIT_ROWS} audit rows`);
    const seeded = seedAuditLog(home, AUDIT_ROWS);
    progress(`panel: seeded in ${formatMs(seeded.ms)}; starting sandpit serve`);
    serve = await startServe({ home, pythonImage: await pythonImage(), logFile });
    const server = serve.info;
    browser = await chromium.launch(chromiumLaunchOptions());

    await loadActivity(browser, server); // warm-up: the server's first answers and the browser's caches
    const loads: Array<Required<ActivityMarks>> = [];
    for (let i = 0; i < LOADS; i++) {
      loads.push(await loadActivity(browser, server));
      progress(`panel: activity load ${i + 1}/${LOADS}: first row painted at ${formatMs(loads[i]?.firstRowFrame ?? NaN)}`);
    }
    const list = await timeApi(server, 'audit.list', { limit: 50 }, LOADS);
    const verify = await timeApi(server, 'audit.verify', {}, LOADS);
    const stream: StreamResult[] = [];
    for (const pace of ['burst', 'paced'] as const) {
      progress(`panel: streaming ${STREAM_BYTES} bytes (${pace}) into an open session page`);
      stream.push(await streamWhileWatching(browser, server, STREAM_BYTES, pace));
    }

    const paint = summarize(loads.map((l) => l.firstRowFrame));
    const ready = summarize(loads.map((l) => l.ready));
    const click = summarize(loads.map((l) => l.firstRowFrame - l.ready));
    process.stdout.write(`\n## panel (Chromium ${browser.version()}, headless; audit log of ${AUDIT_ROWS} rows; N=${LOADS} loads, p99 of ${LOADS} = max)\n`);
    process.stdout.write(
      `${table(
        [...LATENCY_HEADERS],
        [
          latencyRow('activity: navigation → first row painted', paint),
          latencyRow('  navigation → panel connected', ready),
          latencyRow('  click Activity → first row painted', click),
          latencyRow('  api audit.list (newest 50)', list),
          latencyRow(`  api audit.verify (${AUDIT_ROWS} rows)`, verify),
          ...stream.map((r) => latencyRow(`stream 1 MiB ${PACE_WORDS[r.pace]}: frame time`, r.frameMs)),
        ],
      )}\n`,
    );
    for (const r of stream) {
      process.stdout.write(
        `stream ${r.pace}: run ${formatMs(r.runMs)}, console showed the end ${formatMs(r.consoleCaughtUpMs)} after the run returned; ` +
          `${r.frames} frames, longest ${formatMs(r.longestFrameMs)}, ${r.framesOver50ms} over 50 ms; console holds ${r.consoleChars} stdout characters at the end\n`,
      );
    }
    return {
      auditRows: AUDIT_ROWS,
      seedMs: Math.round(seeded.ms),
      activity: {
        loads: LOADS,
        firstRowPaintMs: roundDistribution(paint),
        readyMs: roundDistribution(ready),
        clickToFirstRowMs: roundDistribution(click),
        auditListMs: roundDistribution(list),
        auditVerifyMs: roundDistribution(verify),
      },
      stream,
    };
  } finally {
    await browser?.close();
    await serve?.stop();
    await rm(home, { recursive: true, force: true, maxRetries: 3 });
  }
}
