/**
 * tsx scripts/measure-package-install.ts [--runs 5]
 *
 * Times a runtime `packages.install ['sandpit_demo_a']` into a fresh, running Python session, with the
 * installer on the test package index's internal network (src/test-support/package-index.ts). Nothing
 * leaves this machine. Prints each run and the median: total (the API call), of which the helper
 * container (create → pip → remove) and the version check in the session.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { call } from '../src/core/api/dispatcher';
import { createSandpit } from '../src/core/app';
import { defaultConfig } from '../src/core/config';
import type { DockerClient } from '../src/core/docker/docker-client';
import { ensureExecutorImage } from '../src/core/docker/image-builder';
import { silentLogger } from '../src/core/log';
import { testDocker } from '../src/test-support/docker';
import { startPackageIndex } from '../src/test-support/package-index';

const runs = Number(parseArgs({ options: { runs: { type: 'string', default: '5' } } }).values.runs);
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** The real client, timing each helper container run. */
function timed(inner: DockerClient, helperMs: number[]): DockerClient {
  return new Proxy(inner, {
    get(target, property): unknown {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const fn = (value as (...args: unknown[]) => Promise<unknown>).bind(target);
      if (property !== 'runToCompletion') return fn;
      return async (...args: unknown[]): Promise<unknown> => {
        const t = performance.now();
        try {
          return await fn(...args);
        } finally {
          helperMs.push(performance.now() - t);
        }
      };
    },
  });
}

async function main(): Promise<void> {
  const docker = testDocker();
  const image = await ensureExecutorImage(docker, 'python');
  const index = await startPackageIndex(docker, { image });
  const home = await mkdtemp(join(tmpdir(), 'sandpit-measure-'));
  const helperMs: number[] = [];
  const totals: number[] = [];
  const helpers: number[] = [];
  try {
    const config = defaultConfig({ home, poolSize: 0, images: { python: image }, pipIndexUrl: index.url, installNetwork: index.network });
    const sp = await createSandpit(config, { logger: silentLogger, docker: timed(testDocker(), helperMs) });
    try {
      for (let i = 0; i < runs; i++) {
        const { id } = await sp.sessions.create({});
        helperMs.length = 0;
        const t = performance.now();
        const { results } = await call(sp.api, 'packages.install', { sessionId: id, packages: ['sandpit_demo_a'] }, { transport: 'internal' });
        const total = performance.now() - t;
        if (!results[0]?.ok) throw new Error(`install failed: ${results[0]?.error ?? 'no result'}`);
        const helper = helperMs.reduce((a, b) => a + b, 0);
        totals.push(total);
        helpers.push(helper);
        process.stdout.write(`run ${i + 1}: total ${total.toFixed(0)} ms, helper container ${helper.toFixed(0)} ms, version ${results[0].version ?? '?'}\n`);
        await sp.sessions.stop(id);
      }
    } finally {
      await sp.dispose();
    }
    const m = median(totals);
    const h = median(helpers);
    process.stdout.write(`median of ${runs} (${image}): total ${m.toFixed(0)} ms, helper container ${h.toFixed(0)} ms, rest (version check, queue) ~${(m - h).toFixed(0)} ms\n`);
  } finally {
    await index.stop();
    await rm(home, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`measure-package-install: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exitCode = 1;
});
