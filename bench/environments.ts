/**
 * Environments: the first session of a brand-new environment (its image is built on demand, then a
 * container starts) vs later sessions of it (claims from the environment's warm pool), each timed
 * from `sessions.create({ environment })` to the first result of `import sandpit_demo_a`; and a
 * runtime `packages.install ['sandpit_demo_a']` into fresh sessions.
 *
 * Packages come from the test package index (src/test-support/package-index.ts), a container on an
 * `internal` Docker network made for this run: nothing leaves the machine. Every round uses a new
 * environment whose pip requirement is unique to the round (`sandpit_demo_a!=0.0.<nonce>`, which
 * still installs the newest sandpit_demo_a), so no image or Docker build cache of an earlier round,
 * run or test can serve it: each first session pays a real build. Its image is removed afterwards.
 */
import type { Sandpit } from '../src/core/app';
import { call } from '../src/core/api/dispatcher';
import type { CallContext } from '../src/core/api/api-types';
import type { DockerClient } from '../src/core/docker/docker-client';
import { DockerodeClient } from '../src/core/docker/dockerode-client';
import { silentLogger } from '../src/core/log';
import { startPackageIndex } from '../src/test-support/package-index';
import type { PackageIndex } from '../src/test-support/package-index';
import { now, progress, pythonImage, waitForFullPool, withCore } from './harness';
import { LATENCY_HEADERS, formatMs, formatRatio, goal, goalTable, latencyRow, roundDistribution, summarize, table } from './stats';
import type { Distribution, Goal } from './stats';

/** Rounds, each with a new environment (after one uncounted warm-up round). */
const ROUNDS = 5;
/** Later sessions per round, each claimed from a full pool. */
const LATER_PER_ROUND = 10;
const POOL_SIZE = 2;
/** Runtime installs, each into a fresh session (after one uncounted warm-up install). */
const INSTALLS = 5;

const PACKAGE = 'sandpit_demo_a';
const IMPORT_CODE = `import ${PACKAGE}\n${PACKAGE}.VALUE`;
/** What IMPORT_CODE gives with the newest sandpit_demo_a (1.0.0) of the test index. */
const IMPORT_RESULT = '42';
const PANEL: CallContext = { transport: 'internal' };

interface SessionSample {
  total: number;
  create: number;
  firstRun: number;
  fromPool: boolean;
}

interface FirstSample extends SessionSample {
  /** The image build inside `create`, as the environment's build record has it (ms resolution). */
  build: number;
  /** Whether Docker served the pip step from its build cache (then the build was not real). */
  pipCached: boolean;
}

interface InstallSample {
  total: number;
  helper: number;
  version: string;
}

export interface EnvironmentsSummary {
  rounds: number;
  laterPerRound: number;
  poolSize: number;
  first: { total: Distribution; create: Distribution; build: Distribution; firstRun: Distribution; pipStepFromCache: number };
  later: { total: Distribution; claim: Distribution; firstRun: Distribution; refillWaitMs: Distribution; notFromPool: number };
  ratioFirstLaterP50: number;
  install: { n: number; total: Distribution; helper: Distribution; rest: Distribution; version: string };
  goals: Goal[];
}

/** create (through the API, as every client does) → first result of IMPORT_CODE → stop (untimed). */
async function sessionOnce(sandpit: Sandpit, environment: string): Promise<SessionSample> {
  const t0 = now();
  const info = await call(sandpit.api, 'sessions.create', { environment }, PANEL);
  const t1 = now();
  const result = await call(sandpit.api, 'sessions.execute', { sessionId: info.id, code: IMPORT_CODE }, PANEL);
  const t2 = now();
  await sandpit.sessions.stop(info.id);
  if (result.result !== IMPORT_RESULT) {
    throw new Error(`${JSON.stringify(IMPORT_CODE)} gave ${JSON.stringify(result.result)} (${result.status}): ${result.error?.traceback ?? result.stderr}`);
  }
  return { total: t2 - t0, create: t1 - t0, firstRun: t2 - t1, fromPool: info.fromPool };
}

/**
 * One round: a new environment, its first session (build + cold start), then LATER_PER_ROUND
 * sessions each claimed from its full pool. A fresh core per round, so no pool of an earlier
 * round's environment keeps containers running; the environment's image is removed at the end.
 */
async function round(docker: DockerClient, index: PackageIndex, label: string, nonce: string): Promise<{ first: FirstSample; later: SessionSample[]; refillWaits: number[] }> {
  const made: { tag?: string } = {};
  try {
    return await withCore({ pipIndexUrl: index.url, installNetwork: index.network, egressProxy: false, poolSize: POOL_SIZE }, async (sandpit) => {
      // The default python pool fills first: its container starts must not overlap the build.
      await waitForFullPool(sandpit, POOL_SIZE);
      const env = await call(sandpit.api, 'environments.create', { name: `bench ${nonce}`, language: 'python', packages: { pip: [`${PACKAGE}!=0.0.${nonce}`] } }, PANEL);
      // Known before the build, so the image is removed even when the round fails halfway.
      made.tag = (await sandpit.environments.builder.targetTag(env)).tag;

      const lines: string[] = [];
      const off = sandpit.bus.on('environment.buildLog', (e) => {
        if (e.environmentId === env.id) lines.push(e.line);
      });
      let sample: SessionSample;
      try {
        sample = await sessionOnce(sandpit, env.id);
      } finally {
        off();
      }
      const built = await call(sandpit.api, 'environments.get', { environmentId: env.id }, PANEL);
      const tag = built.image?.tag;
      if (built.build?.state !== 'ready' || !tag) throw new Error(`The environment ${env.id} did not build: ${built.build?.error ?? 'no image'}`);
      if (tag !== made.tag) throw new Error(`The environment ${env.id} was built as ${tag}, not ${made.tag ?? '?'}.`);
      if (sample.fromPool) throw new Error(`The first session of ${env.id} came from a pool.`);
      const build = Date.parse(built.build.finishedAt ?? '') - Date.parse(built.build.startedAt ?? '');
      const first: FirstSample = { ...sample, build, pipCached: pipStepCached(lines) };
      progress(`environments: ${label} first session ${formatMs(first.total)} (build ${formatMs(build)}${first.pipCached ? ', pip step FROM CACHE' : ''}, first run ${formatMs(first.firstRun)})`);

      const later: SessionSample[] = [];
      const refillWaits: number[] = [];
      for (let i = 0; i < LATER_PER_ROUND; i++) {
        refillWaits.push(await waitForFullPool(sandpit, POOL_SIZE));
        if (!sandpit.sessions.poolStatus().some((p) => p.key.includes(JSON.stringify(tag)))) throw new Error(`No warm pool for ${tag}.`);
        later.push(await sessionOnce(sandpit, env.id));
      }
      const d = summarize(later.map((s) => s.total));
      progress(`environments: ${label} later sessions p50 ${formatMs(d.p50)}, max ${formatMs(d.max)}${later.some((s) => !s.fromPool) ? `, ${later.filter((s) => !s.fromPool).length} NOT FROM POOL` : ''}`);
      return { first, later, refillWaits };
    });
  } finally {
    // After the core is gone (its pool containers with it): the image and, with the classic
    // builder, its untagged intermediate layers.
    const { tag } = made;
    if (tag) await docker.removeImage(tag).catch((error: unknown) => progress(`environments: could not remove ${tag}: ${String(error)}`));
  }
}

/** Whether the build log shows the pip RUN step served from Docker's build cache. */
function pipStepCached(lines: readonly string[]): boolean {
  let inPip = false;
  for (const line of lines) {
    if (/^Step \d+\/\d+ : /.test(line)) inPip = /^Step \d+\/\d+ : RUN .*pip/.test(line);
    else if (inPip && /Using cache/.test(line)) return true;
  }
  return false;
}

/** `packages.install [PACKAGE]` into fresh sessions; the helper container's share timed by wrapping the core's client. */
async function installs(index: PackageIndex): Promise<InstallSample[]> {
  return withCore({ pipIndexUrl: index.url, installNetwork: index.network, egressProxy: false, poolSize: 0 }, async (sandpit) => {
    const helperMs: number[] = [];
    const docker = sandpit.docker;
    const runToCompletion = docker.runToCompletion.bind(docker);
    docker.runToCompletion = async (...args) => {
      const t = now();
      try {
        return await runToCompletion(...args);
      } finally {
        helperMs.push(now() - t);
      }
    };
    const once = async (): Promise<InstallSample> => {
      const { id } = await call(sandpit.api, 'sessions.create', {}, PANEL);
      helperMs.length = 0;
      const t0 = now();
      const { results } = await call(sandpit.api, 'packages.install', { sessionId: id, packages: [PACKAGE] }, PANEL);
      const total = now() - t0;
      const helper = helperMs.reduce((sum, ms) => sum + ms, 0);
      const outcome = results[0];
      if (!outcome?.ok) throw new Error(`Installing ${PACKAGE} failed: ${outcome?.error ?? 'no result'}`);
      const check = await call(sandpit.api, 'sessions.execute', { sessionId: id, code: IMPORT_CODE }, PANEL);
      if (check.result !== IMPORT_RESULT) throw new Error(`After the install, ${JSON.stringify(IMPORT_CODE)} gave ${JSON.stringify(check.result)} (${check.status}).`);
      await sandpit.sessions.stop(id);
      return { total, helper, version: outcome.version ?? '?' };
    };

    progress(`environments: runtime install, 1 warm-up + ${INSTALLS} runs`);
    await once();
    const samples: InstallSample[] = [];
    for (let i = 0; i < INSTALLS; i++) {
      const sample = await once();
      samples.push(sample);
      progress(`environments: install ${i + 1}/${INSTALLS}: ${formatMs(sample.total)} (helper container ${formatMs(sample.helper)}, version ${sample.version})`);
    }
    return samples;
  });
}

export async function run(): Promise<EnvironmentsSummary> {
  const docker = new DockerodeClient({ logger: silentLogger });
  const index = await startPackageIndex(docker, { image: await pythonImage() });
  progress(`environments: package index ${index.url} on internal network ${index.network} (${index.packages.join(', ')})`);
  const stamp = Date.now();
  const first: FirstSample[] = [];
  const later: SessionSample[] = [];
  const refillWaits: number[] = [];
  let installSamples: InstallSample[];
  try {
    progress(`environments: 1 warm-up round + ${ROUNDS} rounds, each a new environment, ${LATER_PER_ROUND} later sessions per round (pool of ${POOL_SIZE})`);
    await round(docker, index, 'warm-up', `${stamp}0`);
    for (let r = 1; r <= ROUNDS; r++) {
      const result = await round(docker, index, `round ${r}/${ROUNDS}`, `${stamp}${r}`);
      first.push(result.first);
      later.push(...result.later);
      refillWaits.push(...result.refillWaits);
    }
    installSamples = await installs(index);
  } finally {
    await index.stop();
  }

  const d = <S extends object>(xs: readonly S[], pick: (s: S) => number): Distribution => summarize(xs.map(pick));
  const firstTotal = d(first, (s) => s.total);
  const laterTotal = d(later, (s) => s.total);
  const ratio = firstTotal.p50 / laterTotal.p50;
  const notFromPool = later.filter((s) => !s.fromPool).length;
  const pipCached = first.filter((s) => s.pipCached).length;
  const installTotal = d(installSamples, (s) => s.total);
  const installHelper = d(installSamples, (s) => s.helper);
  const installRest = d(installSamples, (s) => s.total - s.helper);
  const versions = [...new Set(installSamples.map((s) => s.version))].join(', ');

  process.stdout.write(
    `\n## environments (sessions.create({environment}) → first result of \`import ${PACKAGE}\`; local index on an internal network; ` +
      `${ROUNDS} rounds, each a new environment: 1 first session + ${LATER_PER_ROUND} later from a full pool of ${POOL_SIZE}; p99 of n ≤ 100 = max)\n`,
  );
  process.stdout.write(
    `${table(
      [...LATENCY_HEADERS],
      [
        latencyRow('first total', firstTotal),
        latencyRow('  first create', d(first, (s) => s.create)),
        latencyRow('    image build', d(first, (s) => s.build)),
        latencyRow('  first run', d(first, (s) => s.firstRun)),
        latencyRow('later total', laterTotal),
        latencyRow('  later claim', d(later, (s) => s.create)),
        latencyRow('  later first run', d(later, (s) => s.firstRun)),
      ],
    )}\n`,
  );
  process.stdout.write(
    `first/later at p50: ${formatRatio(ratio)}; pip step from the build cache: ${pipCached}/${ROUNDS}; later sessions not served by the pool: ${notFromPool}/${later.length}; ` +
      `pool refill wait p50 ${formatMs(summarize(refillWaits).p50)}\n`,
  );
  const goals = [goal('environments: first/later session p50', '≥ 20×', formatRatio(ratio), ratio >= 20)];
  process.stdout.write(`${goalTable(goals)}\n`);

  process.stdout.write(`\n## runtime install (packages.install ['${PACKAGE}'] into a fresh session, from the local index; N=${INSTALLS}; installed ${versions})\n`);
  process.stdout.write(
    `${table(
      [...LATENCY_HEADERS],
      [latencyRow('install total', installTotal), latencyRow('  helper container (create → pip → remove)', installHelper), latencyRow('  rest (version check, queue)', installRest)],
    )}\n`,
  );

  return {
    rounds: ROUNDS,
    laterPerRound: LATER_PER_ROUND,
    poolSize: POOL_SIZE,
    first: {
      total: roundDistribution(firstTotal),
      create: roundDistribution(d(first, (s) => s.create)),
      build: roundDistribution(d(first, (s) => s.build)),
      firstRun: roundDistribution(d(first, (s) => s.firstRun)),
      pipStepFromCache: pipCached,
    },
    later: {
      total: roundDistribution(laterTotal),
      claim: roundDistribution(d(later, (s) => s.create)),
      firstRun: roundDistribution(d(later, (s) => s.firstRun)),
      refillWaitMs: roundDistribution(summarize(refillWaits)),
      notFromPool,
    },
    ratioFirstLaterP50: Math.round(ratio * 10) / 10,
    install: { n: INSTALLS, total: roundDistribution(installTotal), helper: roundDistribution(installHelper), rest: roundDistribution(installRest), version: versions },
    goals,
  };
}
