/**
 * Review folders ("Changes need my OK") on both backends, through the API as the panel calls it, with a real
 * engine: listing the pending changes of a 10,000-file folder with 100 changed by code in the sandbox (goal
 * ≤ 300 ms p50), and applying those 100 (goal ≤ 1 s); beside each listing's wall time, the CPU time this
 * process spent on it (what the listing costs, whatever else the machine does). Also: the listing of the layer
 * alone (copy backend, no engine), and sharing a 1 GiB folder (copy: copied and hashed; overlay: stat'ed).
 */
import { chown, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { call } from '../src/core/api/dispatcher';
import type { CallContext } from '../src/core/api/api-types';
import type { Sandpit } from '../src/core/app';
import { ReviewLayers } from '../src/core/folders/review/review-layers';
import { now, progress, withCore } from './harness';
import { LATENCY_HEADERS, formatMs, goal, latencyRow, roundDistribution, summarize, table } from './stats';
import type { Distribution, Goal } from './stats';

const FILES = 10_000;
const CHANGED = 100;
const LISTS = 5;
const APPLIES = 3;
const GIB_FILES = 64;
const GIB_FILE_BYTES = 16 * 1024 * 1024;
const PANEL: CallContext = { transport: 'ipc', client: 'panel' };
const BACKENDS = ['copy', 'overlay'] as const;
type Backend = (typeof BACKENDS)[number];

interface BackendFigures {
  list: Distribution;
  listCpu: Distribution;
  apply: Distribution;
  share: number;
}

export interface ReviewFoldersSummary {
  backends: Record<Backend, BackendFigures>;
  layerList: Distribution;
  layerListCpu: Distribution;
  shareGiBMs: Record<Backend, number>;
  load: number[];
  goals: Goal[];
}

/** 10,000 files of 1 KiB in 100 folders, given to the sandbox user (an overlay keeps the person's owners). */
async function makeFolder(dir: string): Promise<void> {
  const body = Buffer.alloc(1024, 'x');
  await mkdir(dir, { recursive: true });
  for (let d = 0; d < FILES / 100; d++) {
    await mkdir(join(dir, `d${d}`));
    await Promise.all(Array.from({ length: 100 }, (_, f) => writeFile(join(dir, `d${d}`, `f${f}.txt`), body)));
  }
  const own = async (path: string): Promise<void> => {
    await chown(path, 10001, 10001);
    for (const entry of await readdir(path, { withFileTypes: true }))
      if (entry.isDirectory()) await own(join(path, entry.name));
      else await chown(join(path, entry.name), 10001, 10001);
  };
  await own(dir);
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; cpuMs: number; value: T }> {
  const cpu = process.cpuUsage();
  const t0 = now();
  const value = await work();
  const used = process.cpuUsage(cpu);
  return { ms: now() - t0, cpuMs: (used.user + used.system) / 1000, value };
}

/** One backend through the API: share, 100 files changed in the sandbox, listed LISTS times, applied; APPLIES rounds. */
async function throughApi(sandpit: Sandpit, folder: string, backend: Backend): Promise<BackendFigures> {
  const list: number[] = [];
  const listCpu: number[] = [];
  const apply: number[] = [];
  const session = await call(sandpit.api, 'sessions.create', {}, PANEL);
  const shared = await timed(() =>
    call(
      sandpit.api,
      'sessions.addFolder',
      { sessionId: session.id, folder: { hostPath: folder, mode: 'review' } },
      PANEL,
    ),
  );
  const mount = shared.value.folders[0]!.mountPath;
  for (let round = 0; round < APPLIES; round++) {
    const code = `for k in range(${CHANGED}):\n    open(f'${mount}/d{k}/f0.txt', 'w').write(f'changed ${round} {k}\\n')`;
    const ran = await call(sandpit.api, 'sessions.execute', { sessionId: session.id, code }, PANEL);
    if (ran.status !== 'ok') throw new Error(`the sandbox could not change the files: ${ran.stderr}`);
    for (let i = 0; i < LISTS; i++) {
      const listed = await timed(() => call(sandpit.api, 'changes.list', { sessionId: session.id }, PANEL));
      const folderChanges = listed.value.folders[0]!;
      if (folderChanges.backend !== backend)
        throw new Error(`the folder is a ${folderChanges.backend}, not a ${backend}`);
      if (folderChanges.changes.length !== CHANGED)
        throw new Error(`listed ${folderChanges.changes.length} changes, not ${CHANGED}`);
      list.push(listed.ms);
      listCpu.push(listed.cpuMs);
    }
    const applied = await timed(() =>
      call(sandpit.api, 'changes.apply', { sessionId: session.id, mountPath: mount }, PANEL),
    );
    if (!applied.value.outcomes.every((o) => o.done)) throw new Error('an apply failed');
    apply.push(applied.ms);
    progress(
      `review-folders ${backend} round ${round + 1}/${APPLIES}: list p50 ${summarize(list).p50.toFixed(0)} ms, apply ${applied.ms.toFixed(0)} ms`,
    );
  }
  await call(sandpit.api, 'sessions.stop', { sessionId: session.id }, PANEL);
  return {
    list: roundDistribution(summarize(list)),
    listCpu: roundDistribution(summarize(listCpu)),
    apply: roundDistribution(summarize(apply)),
    share: Math.round(shared.ms),
  };
}

/** The copy layer alone (no engine): the changes written straight into it. */
async function layerOnly(root: string, person: string): Promise<{ list: number[]; cpu: number[] }> {
  const layers = new ReviewLayers({ dataFolder: join(root, 'data'), trash: undefined, setting: 'copy' });
  const { layerPath } = await layers.create(person);
  await Promise.all(
    Array.from({ length: CHANGED }, (_, k) => writeFile(join(layerPath, `d${k}`, 'f0.txt'), `changed ${k}\n`)),
  );
  const list: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < LISTS; i++) {
    const listed = await timed(() => layers.changes(layerPath, person));
    if (listed.value.length !== CHANGED) throw new Error(`listed ${listed.value.length} changes, not ${CHANGED}`);
    list.push(listed.ms);
    cpu.push(listed.cpuMs);
  }
  await layers.remove(layerPath);
  return { list, cpu };
}

async function shareGiB(root: string): Promise<Record<Backend, number>> {
  const big = join(root, 'big');
  await mkdir(big);
  const chunk = Buffer.alloc(GIB_FILE_BYTES, 7);
  for (let f = 0; f < GIB_FILES; f++) await writeFile(join(big, `part${f}.bin`), chunk);
  const out = {} as Record<Backend, number>;
  for (const backend of BACKENDS) {
    // the overlay's share is Sandpit's part only (its record); the engine's one-time probe is not in it
    const overlay = { refusal: (): Promise<undefined> => Promise.resolve(undefined) };
    const layers = new ReviewLayers({
      dataFolder: join(root, `data-${backend}`),
      trash: undefined,
      setting: backend,
      overlay,
    });
    const made = await timed(() => layers.create(big));
    if (made.value.backend !== backend) throw new Error(`made a ${made.value.backend} layer, not a ${backend}`);
    out[backend] = Math.round(made.ms);
    await layers.remove(made.value.layerPath);
  }
  return out;
}

export async function run(): Promise<ReviewFoldersSummary> {
  const root = await mkdtemp(join(tmpdir(), 'sandpit-bench-review-'));
  const load = [loadavg()[0]!];
  try {
    const person = join(root, 'person');
    await makeFolder(person);
    const backends = {} as Record<Backend, BackendFigures>;
    for (const backend of BACKENDS) {
      backends[backend] = await withCore({ reviewLayers: backend, egressProxy: false }, (sandpit) =>
        throughApi(sandpit, person, backend),
      );
      load.push(loadavg()[0]!);
    }
    const layer = await layerOnly(root, person);
    const shareGiBMs = await shareGiB(root);
    load.push(loadavg()[0]!);
    return report(backends, layer, shareGiBMs, load);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

function report(
  backends: Record<Backend, BackendFigures>,
  layer: { list: number[]; cpu: number[] },
  shareGiBMs: Record<Backend, number>,
  load: number[],
): ReviewFoldersSummary {
  const layerList = roundDistribution(summarize(layer.list));
  const layerListCpu = roundDistribution(summarize(layer.cpu));
  const goals: Goal[] = [];
  const rows: string[][] = [];
  for (const backend of BACKENDS) {
    const f = backends[backend];
    goals.push(
      goal(
        `${backend}: list pending, 10,000 files, 100 changed`,
        '≤ 300 ms (p50)',
        formatMs(f.list.p50),
        f.list.p50 <= 300,
      ),
      goal(`${backend}: apply 100 changed files`, '≤ 1 s (p50)', formatMs(f.apply.p50), f.apply.p50 <= 1000),
    );
    rows.push(
      latencyRow(`${backend}: list pending (${FILES} files, ${CHANGED} changed)`, f.list),
      latencyRow(`${backend}: … CPU of the listing`, f.listCpu),
      latencyRow(`${backend}: apply ${CHANGED} files`, f.apply),
    );
  }
  rows.push(
    latencyRow('copy layer alone: list pending', layerList),
    latencyRow('copy layer alone: … CPU', layerListCpu),
  );
  process.stdout.write(
    `\n## review folders (through the API, real engine; ${LISTS} listings × ${APPLIES} rounds per backend)\n`,
  );
  process.stdout.write(`${table([...LATENCY_HEADERS], rows)}\n`);
  process.stdout.write(
    `share of the 10,000-file folder: copy ${formatMs(backends.copy.share)}, overlay ${formatMs(backends.overlay.share)} (with the engine's one-time probe)\n` +
      `share of a 1 GiB folder (${GIB_FILES} × 16 MiB): copy ${formatMs(shareGiBMs.copy)} (copied and hashed), overlay ${formatMs(shareGiBMs.overlay)} (stat'ed)\n` +
      `load average (1 min) before, after each backend, at the end: ${load.map((l) => l.toFixed(1)).join(', ')}\n`,
  );
  return { backends, layerList, layerListCpu, shareGiBMs, load, goals };
}
