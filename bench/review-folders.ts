/**
 * Review folders ("Changes need my OK"), copy backend, measured on the layer itself (what the API calls):
 * listing the pending changes of a 10,000-file folder with 100 changed (goal ≤ 300 ms), applying those 100
 * (goal ≤ 1 s), and sharing a 1 GiB folder in copy mode (copied and hashed; reported).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReviewLayers } from '../src/core/folders/review/review-layers';
import { now, progress } from './harness';
import { LATENCY_HEADERS, formatMs, goal, latencyRow, roundDistribution, summarize, table } from './stats';
import type { Distribution, Goal } from './stats';

const FILES = 10_000;
const CHANGED = 100;
const N = 3;
const GIB_FILES = 64;
const GIB_FILE_BYTES = 16 * 1024 * 1024;

export interface ReviewFoldersSummary {
  /** The first listing right after the share (the copy's 10,000 files still being written back to disk). */
  firstList: Distribution;
  list: Distribution;
  apply: Distribution;
  shareGiBMs: number;
  goals: Goal[];
}

async function makeFolder(dir: string): Promise<void> {
  const body = Buffer.alloc(1024, 'x');
  for (let d = 0; d < FILES / 100; d++) {
    await mkdir(join(dir, `d${d}`), { recursive: true });
    await Promise.all(Array.from({ length: 100 }, (_, f) => writeFile(join(dir, `d${d}`, `f${f}.txt`), body)));
  }
}

export async function run(): Promise<ReviewFoldersSummary> {
  const root = await mkdtemp(join(tmpdir(), 'sandpit-bench-review-'));
  const list: number[] = [];
  const firstList: number[] = [];
  const apply: number[] = [];
  let shareGiBMs = 0;
  try {
    const person = join(root, 'person');
    await makeFolder(person);
    const layers = new ReviewLayers({ dataFolder: join(root, 'data'), trash: undefined });
    for (let i = 0; i < N; i++) {
      const { layerPath: layer } = await layers.create(person);
      // what code in the sandbox would do: change 100 files of the copy
      await Promise.all(
        Array.from({ length: CHANGED }, (_, k) => writeFile(join(layer, `d${k}`, 'f0.txt'), `changed ${i} ${k}\n`)),
      );
      const t00 = now();
      await layers.changes(layer, person);
      firstList.push(now() - t00);
      // the person opens the Changes tab later: the listing as it is then
      const t0 = now();
      const changes = await layers.changes(layer, person);
      list.push(now() - t0);
      if (changes.length !== CHANGED) throw new Error(`listed ${changes.length} changes, not ${CHANGED}`);
      const t1 = now();
      const outcomes = await layers.apply(layer, person, { all: true });
      apply.push(now() - t1);
      if (!outcomes.every((o) => o.done)) throw new Error(`an apply failed: ${outcomes.find((o) => !o.done)?.message}`);
      await layers.remove(layer);
      progress(
        `review-folders ${i + 1}/${N}: first list ${firstList[i]!.toFixed(0)} ms, list ${list[i]!.toFixed(0)} ms, apply ${apply[i]!.toFixed(0)} ms`,
      );
    }
    const big = join(root, 'big');
    await mkdir(big);
    const chunk = Buffer.alloc(GIB_FILE_BYTES, 7);
    for (let f = 0; f < GIB_FILES; f++) await writeFile(join(big, `part${f}.bin`), chunk);
    const t2 = now();
    const { layerPath: layer } = await layers.create(big);
    shareGiBMs = now() - t2;
    await layers.remove(layer);
    progress(`review-folders: copy-mode share of 1 GiB ${shareGiBMs.toFixed(0)} ms`);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  const summary = {
    firstList: roundDistribution(summarize(firstList)),
    list: roundDistribution(summarize(list)),
    apply: roundDistribution(summarize(apply)),
    shareGiBMs: Math.round(shareGiBMs),
  };
  const goals = [
    goal(
      'list pending: 10,000 files, 100 changed',
      '≤ 300 ms (p50)',
      formatMs(summary.list.p50),
      summary.list.p50 <= 300,
    ),
    goal('apply 100 changed files', '≤ 1 s (p50)', formatMs(summary.apply.p50), summary.apply.p50 <= 1000),
  ];
  process.stdout.write(`\n## review folders (copy backend, N=${N})\n`);
  process.stdout.write(
    `${table([...LATENCY_HEADERS], [latencyRow('first list right after the share', summary.firstList), latencyRow(`list pending (${FILES} files, ${CHANGED} changed)`, summary.list), latencyRow(`apply ${CHANGED} files`, summary.apply)])}\n`,
  );
  process.stdout.write(
    `copy-mode share of a 1 GiB folder (${GIB_FILES} × 16 MiB, copied and hashed): ${formatMs(summary.shareGiBMs)}\n`,
  );
  return { ...summary, goals };
}
