/**
 * Snapshots and forks of a session whose workspace holds 100 MiB (100 files of 1 MiB of random bytes):
 * a first snapshot (every byte new to the store), a repeat snapshot (unchanged files: nothing stored
 * again), a restore into a new session, and a fork (snapshot + new session + restore), each timed end to end.
 * The warm pool is on as by default (2 per template, full before each restore and fork): a restore of a snapshot
 * with the default limits claims a warm sandbox, as it does for a person.
 * The reference, in the same run: GNU tar reading the same workspace inside the sandbox (`tar -cf - . | wc -c`,
 * timed inside), and the goal is each ≤ 0.5 s and ≤ 5× that. Beside it, what a restore cannot go below: GNU tar
 * copying the same files into another folder of the sandbox's disk (read and written, timed inside).
 */
import type { Sandpit } from '../src/core/app';
import { call } from '../src/core/api/dispatcher';
import type { CallContext } from '../src/core/api/api-types';
import { newSession } from '../src/test-support/sessions';
import { now, progress, waitForFullPool, withCore } from './harness';
import { LATENCY_HEADERS, formatMs, latencyRow, roundDistribution, summarize, table } from './stats';
import type { Distribution } from './stats';

const N = 5;
const FILES = 100;
const FILE_MIB = 1;
const PANEL: CallContext = { transport: 'internal' };
/** Warm sandboxes per template, as by default. */
const POOL = 2;

export interface SnapshotsSummary {
  n: number;
  workspaceMiB: number;
  files: number;
  firstSnapshot: Distribution;
  repeatSnapshot: Distribution;
  restore: Distribution;
  fork: Distribution;
  /** tar reading the same workspace inside the sandbox (timed inside it). */
  tarReference: Distribution;
  /** tar copying the same files into another folder of the sandbox (read and written, timed inside it). */
  tarCopyReference: Distribution;
  /** p50 of each over tar's p50. */
  ratios: { firstSnapshot: number; repeatSnapshot: number; restore: number; fork: number };
  /** Storage the repeat snapshots added, in bytes (content addressing: about 0). */
  repeatAddedBytes: number[];
  firstSnapshotMiBps: number;
}

const FILL = [
  'import os',
  `for i in range(${FILES}):`,
  "    with open(f'data/part-{i:03d}.bin', 'wb') as f:",
  `        f.write(os.urandom(${FILE_MIB} * 1024 * 1024))`,
].join('\n');

/** Times tar reading the workspace inside the sandbox (date's nanoseconds around it), in ms. */
async function tarInside(sandpit: Sandpit, sessionId: string): Promise<number> {
  const command = 's=$(date +%s%N); tar -cf - . | wc -c >/dev/null; e=$(date +%s%N); echo $(( (e - s) / 1000 ))';
  const r = await call(sandpit.api, 'sessions.runCommand', { sessionId, command, timeoutMs: 60_000 }, PANEL);
  const us = Number(r.stdout.trim());
  if (r.exitCode !== 0 || !Number.isFinite(us)) throw new Error(`tar in the sandbox failed: ${r.stderr}`);
  return us / 1000;
}

/** Times tar copying the workspace's files into another folder of the sandbox's disk (then removed), in ms. */
async function tarCopyInside(sandpit: Sandpit, sessionId: string): Promise<number> {
  const command = 'rm -rf .copy && mkdir .copy && s=$(date +%s%N); tar -cf - data | tar -xf - -C .copy; e=$(date +%s%N); rm -rf .copy; echo $(( (e - s) / 1000 ))';
  const r = await call(sandpit.api, 'sessions.runCommand', { sessionId, command, timeoutMs: 60_000 }, PANEL);
  const us = Number(r.stdout.trim());
  if (r.exitCode !== 0 || !Number.isFinite(us)) throw new Error(`tar copying in the sandbox failed: ${r.stderr}`);
  return us / 1000;
}

async function fill(sandpit: Sandpit, sessionId: string): Promise<void> {
  const r = await call(sandpit.api, 'sessions.execute', { sessionId, code: `import os\nos.makedirs('data', exist_ok=True)\n${FILL}`, timeoutMs: 120_000 }, PANEL);
  if (r.status !== 'ok') throw new Error(`filling the workspace failed: ${r.error?.value ?? r.status}`);
}

export async function run(): Promise<SnapshotsSummary> {
  return withCore({ poolSize: POOL }, async (sandpit) => {
    // The default limits (a 512 MiB workspace holds the 100 MiB): restores and forks can claim a warm sandbox.
    const source = await newSession(sandpit, {});
    const first: number[] = [];
    const repeat: number[] = [];
    const restore: number[] = [];
    const fork: number[] = [];
    const repeatAdded: number[] = [];
    const tar: number[] = [];
    const tarCopy: number[] = [];
    const stop = async (id: string): Promise<void> => void (await call(sandpit.api, 'sessions.stop', { sessionId: id }, PANEL));
    for (let i = 0; i < N; i++) {
      // New random bytes each round: the first snapshot of them stores every byte.
      await fill(sandpit, source.id);
      tar.push(await tarInside(sandpit, source.id));
      let t = now();
      const snap = await call(sandpit.api, 'snapshots.create', { sessionId: source.id }, PANEL);
      first.push(now() - t);
      if (snap.fileBytes !== FILES * FILE_MIB * 1024 * 1024) throw new Error(`the snapshot holds ${snap.fileBytes} bytes of files`);
      t = now();
      const again = await call(sandpit.api, 'snapshots.create', { sessionId: source.id }, PANEL);
      repeat.push(now() - t);
      repeatAdded.push(again.addedBytes);
      await waitForFullPool(sandpit, POOL);
      t = now();
      const restored = await call(sandpit.api, 'snapshots.restore', { snapshot: snap.id }, PANEL);
      restore.push(now() - t);
      await stop(restored.session.id);
      await waitForFullPool(sandpit, POOL);
      t = now();
      const forked = await call(sandpit.api, 'sessions.fork', { sessionId: source.id }, PANEL);
      fork.push(now() - t);
      await stop(forked.session.id);
      for (const s of (await call(sandpit.api, 'snapshots.list', {}, PANEL)).snapshots) await call(sandpit.api, 'snapshots.delete', { snapshotId: s.id }, PANEL);
      tarCopy.push(await tarCopyInside(sandpit, source.id));
      progress(`snapshots ${i + 1}/${N}: tar in the sandbox ${formatMs(tar[i] ?? NaN)}, first ${formatMs(first[i] ?? NaN)}, repeat ${formatMs(repeat[i] ?? NaN)}, restore ${formatMs(restore[i] ?? NaN)} (tar copy there ${formatMs(tarCopy[i] ?? NaN)}), fork ${formatMs(fork[i] ?? NaN)}`);
    }
    await stop(source.id);
    const tarP50 = summarize(tar).p50;
    const ratio = (xs: number[]): number => Math.round((summarize(xs).p50 / tarP50) * 10) / 10;
    const summary: SnapshotsSummary = {
      n: N,
      workspaceMiB: FILES * FILE_MIB,
      files: FILES,
      firstSnapshot: roundDistribution(summarize(first)),
      repeatSnapshot: roundDistribution(summarize(repeat)),
      restore: roundDistribution(summarize(restore)),
      fork: roundDistribution(summarize(fork)),
      tarReference: roundDistribution(summarize(tar)),
      tarCopyReference: roundDistribution(summarize(tarCopy)),
      ratios: { firstSnapshot: ratio(first), repeatSnapshot: ratio(repeat), restore: ratio(restore), fork: ratio(fork) },
      repeatAddedBytes: repeatAdded,
      firstSnapshotMiBps: Math.round(((FILES * FILE_MIB) / (summarize(first).p50 / 1000)) * 10) / 10,
    };
    process.stdout.write(`\n## snapshots (workspace of ${summary.workspaceMiB} MiB in ${FILES} files; n = ${N})\n`);
    process.stdout.write(
      `${table(LATENCY_HEADERS, [
        latencyRow('first snapshot (all bytes new)', summary.firstSnapshot),
        latencyRow('repeat snapshot (unchanged)', summary.repeatSnapshot),
        latencyRow('restore into a new session', summary.restore),
        latencyRow('fork (snapshot + new session + restore)', summary.fork),
        latencyRow('reference: tar reads the workspace in the sandbox', summary.tarReference),
        latencyRow('beside it: tar copies it to another folder there', summary.tarCopyReference),
      ])}\n`,
    );
    const r = summary.ratios;
    process.stdout.write(`p50 over tar's p50: first ${r.firstSnapshot}×, repeat ${r.repeatSnapshot}×, restore ${r.restore}×, fork ${r.fork}× (goal: each ≤ 5× and ≤ 0.5 s)\n`);
    process.stdout.write(`restore over tar's copy in the sandbox: ${Math.round((summary.restore.p50 / summary.tarCopyReference.p50) * 10) / 10}× (what a restore writes, the sandbox's disk writes too)\n`);
    process.stdout.write(`first snapshot ≈ ${summary.firstSnapshotMiBps} MiB/s; storage added by the repeat snapshots: ${repeatAdded.join(', ')} bytes\n`);
    return summary;
  });
}
