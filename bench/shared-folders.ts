/**
 * Shared folders: what a folder costs. A session of an environment with a folder starts cold (never from
 * a warm pool): create → first `1+1`, against a cold session of the built-in environment; and adding a
 * folder to a running session (a new container keeping /workspace) → the next `1+1`.
 */
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Sandpit } from '../src/core/app';
import { call } from '../src/core/api/dispatcher';
import type { CallContext } from '../src/core/api/api-types';
import { now, progress, withCore } from './harness';
import { LATENCY_HEADERS, latencyRow, roundDistribution, summarize, table } from './stats';
import type { Distribution } from './stats';

const N = 10;
const PANEL: CallContext = { transport: 'ipc', client: 'panel' };

export interface SharedFoldersSummary {
  n: number;
  coldPlain: Distribution;
  coldWithFolder: Distribution;
  addFolder: Distribution;
}

async function startAndRun(sandpit: Sandpit, environment?: string): Promise<{ ms: number; id: string }> {
  const t0 = now();
  const info = await call(sandpit.api, 'sessions.create', environment ? { environment } : {}, PANEL);
  const result = await call(sandpit.api, 'sessions.execute', { sessionId: info.id, code: '1+1' }, PANEL);
  if (result.result !== '2') throw new Error(`1+1 gave ${JSON.stringify(result.result)} (${result.status})`);
  return { ms: now() - t0, id: info.id };
}

export async function run(): Promise<SharedFoldersSummary> {
  const folder = await mkdtemp(join(tmpdir(), 'sandpit-bench-share-'));
  await chmod(folder, 0o755);
  await writeFile(join(folder, 'data.txt'), 'x');
  const plain: number[] = [];
  const withFolder: number[] = [];
  const add: number[] = [];
  try {
    await withCore({ poolSize: 0 }, async (sandpit) => {
      await call(sandpit.api, 'environments.create', { name: 'Bench folders', language: 'python', folders: [{ hostPath: folder }] }, PANEL);
      // Warm-ups: the first container after a build pays page-cache misses.
      for (const env of [undefined, 'Bench folders']) await sandpit.sessions.stop((await startAndRun(sandpit, env)).id);
      for (let i = 0; i < N; i++) {
        const a = await startAndRun(sandpit);
        plain.push(a.ms);
        const b = await startAndRun(sandpit, 'Bench folders');
        withFolder.push(b.ms);
        const t0 = now();
        await call(sandpit.api, 'sessions.addFolder', { sessionId: a.id, folder: { hostPath: folder } }, PANEL);
        const r = await call(sandpit.api, 'sessions.execute', { sessionId: a.id, code: '1+1' }, PANEL);
        if (r.result !== '2') throw new Error(`1+1 after adding a folder gave ${JSON.stringify(r.result)}`);
        add.push(now() - t0);
        await Promise.all([sandpit.sessions.stop(a.id), sandpit.sessions.stop(b.id)]);
        progress(`shared-folders ${i + 1}/${N}: plain ${plain[i]?.toFixed(0)} ms, with a folder ${withFolder[i]?.toFixed(0)} ms, add a folder ${add[i]?.toFixed(0)} ms`);
      }
    });
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
  const summary: SharedFoldersSummary = {
    n: N,
    coldPlain: roundDistribution(summarize(plain)),
    coldWithFolder: roundDistribution(summarize(withFolder)),
    addFolder: roundDistribution(summarize(add)),
  };
  process.stdout.write(`\n## shared folders (N=${N}, poolSize 0, p99 of ${N} = max)\n`);
  process.stdout.write(
    `${table(
      [...LATENCY_HEADERS],
      [
        latencyRow('cold session → first 1+1', summary.coldPlain),
        latencyRow('cold session with a folder → first 1+1', summary.coldWithFolder),
        latencyRow('add a folder to a running session → next 1+1', summary.addFolder),
      ],
    )}\n`,
  );
  return summary;
}
