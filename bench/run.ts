/**
 * `npm run bench` (= `tsx bench/run.ts [NAME …]`, NAME one of BENCHMARKS' keys below): runs the benchmarks
 * against the real Docker engine, prints their tables on stdout and writes everything measured to
 * reports/bench.json. Benchmarks are measurements, not tests: a missed goal never fails the run
 * (only a benchmark that could not run does).
 */
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, release, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { DockerodeClient } from '../src/core/docker/dockerode-client';
import { silentLogger } from '../src/core/log';
import * as chatApproval from './chat-approval';
import * as backgroundRuns from './background-runs';
import * as environments from './environments';
import * as firstAnswer from './first-answer';
import * as floor from './floor';
import { disposeAll, progress, pythonImage } from './harness';
import * as isolation from './isolation';
import * as languages from './languages';
import * as mcpRoundTrip from './mcp-round-trip';
import * as memory from './memory';
import * as notebooks from './notebooks';
import * as panel from './panel';
import * as pauseResume from './pause-resume';
import * as previews from './previews';
import * as scale from './scale';
import * as snapshots from './snapshots';
import * as sharedFolders from './shared-folders';
import * as reviewFolders from './review-folders';
import * as secrets from './secrets';
import * as roundTrip from './round-trip';
import * as startup from './startup';
import { goalTable } from './stats';
import type { Goal } from './stats';
import * as throughput from './throughput';

const BENCHMARKS: Record<string, () => Promise<unknown>> = {
  startup: startup.run,
  'round-trip': roundTrip.run,
  'mcp-round-trip': mcpRoundTrip.run,
  throughput: throughput.run,
  memory: memory.run,
  panel: panel.run,
  environments: environments.run,
  'first-answer': firstAnswer.run,
  scale: scale.run,
  'shared-folders': sharedFolders.run,
  'review-folders': reviewFolders.run,
  notebooks: notebooks.run,
  'pause-resume': pauseResume.run,
  snapshots: snapshots.run,
  isolation: isolation.run,
  floor: floor.run,
  // Approvals in the chat (issue 23).
  'chat-approval': chatApproval.run,
  'background-runs': backgroundRuns.run,
  secrets: secrets.run,
  previews: previews.run,
  // Python, JavaScript and R side by side (issue 22).
  languages: languages.run,
};
const ALIASES: Record<string, string> = { first: 'first-answer', roundtrip: 'round-trip', 'round_trip': 'round-trip', mcp: 'mcp-round-trip', mem: 'memory', env: 'environments', envs: 'environments', pause: 'pause-resume', gvisor: 'isolation', background: 'background-runs', preview: 'previews' };

function gitCommit(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

function goalsOf(result: unknown): Goal[] {
  const goals = (result as { goals?: unknown } | undefined)?.goals;
  return Array.isArray(goals) ? (goals as Goal[]) : [];
}

async function main(): Promise<number> {
  const asked = process.argv.slice(2).map((a) => ALIASES[a] ?? a);
  const unknown = asked.filter((a) => !(a in BENCHMARKS));
  if (unknown.length > 0) {
    process.stderr.write(`Unknown benchmark(s): ${unknown.join(', ')}. Known: ${Object.keys(BENCHMARKS).join(', ')}.\n`);
    return 2;
  }
  const names = asked.length > 0 ? asked : Object.keys(BENCHMARKS);

  const docker = new DockerodeClient({ logger: silentLogger });
  const engine = await docker.ping(10_000);
  const meta = {
    date: new Date().toISOString(),
    commit: gitCommit(),
    node: process.version,
    docker: engine.version,
    kernel: release(),
    hostCpus: availableParallelism(),
    hostMemoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    image: await pythonImage(),
    benchmarks: names,
    /** 1/5/15-minute load averages before and after: anything else running on the host skews the numbers. */
    loadBefore: loadavg().map((l) => Math.round(l * 100) / 100),
    loadAfter: [] as number[],
  };
  process.stdout.write(`# Sandpit benchmarks — ${meta.date}${meta.commit ? ` @ ${meta.commit}` : ''}\n`);
  process.stdout.write(`node ${meta.node}, Docker ${meta.docker}, kernel ${meta.kernel}, ${meta.hostCpus} CPUs, ${meta.hostMemoryGiB} GiB, image ${meta.image}, load ${meta.loadBefore.join(' ')}\n`);

  const results: Record<string, unknown> = {};
  let failed = 0;
  for (const name of names) {
    const run = BENCHMARKS[name];
    if (!run) continue;
    const started = Date.now();
    progress(`${name}: starting`);
    try {
      results[name] = await run();
      progress(`${name}: done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    } catch (error) {
      failed += 1;
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      results[name] = { error: message };
      process.stdout.write(`\n## ${name}: could not run\n${message}\n`);
    }
  }

  meta.loadAfter = loadavg().map((l) => Math.round(l * 100) / 100);
  process.stdout.write(`\nhost load average after: ${meta.loadAfter.join(' ')}\n`);
  const goals = Object.values(results).flatMap(goalsOf);
  if (goals.length > 0) process.stdout.write(`\n## goals (informative; benchmarks never fail on them)\n${goalTable(goals)}\n`);

  const dir = resolve(__dirname, '..', 'reports');
  await mkdir(dir, { recursive: true });
  const file = join(dir, 'bench.json');
  await writeFile(file, `${JSON.stringify({ meta, results }, null, 2)}\n`);
  process.stdout.write(`\nwrote ${file}\n`);
  return failed > 0 ? 1 : 0;
}

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(130);
    stopping = true;
    progress(`${signal}: cleaning up (press again to quit at once)`);
    void disposeAll().finally(() => process.exit(130));
  });
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  async (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    await disposeAll();
    process.exitCode = 1;
  },
);
