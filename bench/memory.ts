/**
 * Memory of an idle session: 10 sessions, 2 s of rest, then each container's memory cgroup is read
 * (the host's cgroup files when visible, else the Docker stats API). The headline number is the
 * working set as `docker stats` shows it: usage minus inactive page cache.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import Docker from 'dockerode';
import { resolveEndpoint } from '../src/core/docker/dockerode-client';
import { mapLimit, progress, sleep, withCore } from './harness';
import { formatMiB, goal, goalTable, median, table } from './stats';
import type { Goal } from './stats';
import { newSession } from '../src/test-support/sessions';

const SESSIONS = 10;
const REST_MS = 2_000;

/** One container's memory, in bytes. */
export interface MemoryReading {
  /** Everything the cgroup is charged: anon + page cache (+ kernel memory on cgroup v1). */
  usage: number;
  /** Page cache that the kernel may reclaim first (`total_inactive_file` / `inactive_file`). */
  inactiveFile: number;
  /** usage − inactiveFile: what `docker stats` shows as MEM USAGE. */
  workingSet: number;
  /** Anonymous memory (`total_rss` / `anon`): the processes' own heap and stacks. */
  anon: number;
  /** All page cache (`total_cache` / `file`). */
  cache: number;
  source: string;
}

function parseStat(text: string): Map<string, number> {
  const stat = new Map<string, number>();
  for (const line of text.split('\n')) {
    const [key, value] = line.split(' ');
    if (key && value) stat.set(key, Number(value));
  }
  return stat;
}

function reading(usage: number, stat: Map<string, number>, v1: boolean, source: string): MemoryReading {
  const inactiveFile = (v1 ? stat.get('total_inactive_file') : stat.get('inactive_file')) ?? 0;
  return {
    usage,
    inactiveFile,
    workingSet: inactiveFile < usage ? usage - inactiveFile : usage,
    anon: (v1 ? stat.get('total_rss') : stat.get('anon')) ?? Number.NaN,
    cache: (v1 ? stat.get('total_cache') : stat.get('file')) ?? Number.NaN,
    source,
  };
}

/** Reads the container's memory cgroup from the host (cgroup v1 or v2, cgroupfs or systemd driver), or undefined. */
export async function readCgroup(containerId: string): Promise<MemoryReading | undefined> {
  const v1 = [`/sys/fs/cgroup/memory/docker/${containerId}`, `/sys/fs/cgroup/memory/system.slice/docker-${containerId}.scope`];
  for (const dir of v1) {
    if (!existsSync(`${dir}/memory.usage_in_bytes`)) continue;
    const usage = Number((await readFile(`${dir}/memory.usage_in_bytes`, 'utf8')).trim());
    return reading(usage, parseStat(await readFile(`${dir}/memory.stat`, 'utf8')), true, `cgroup v1 ${dir}`);
  }
  const v2 = [`/sys/fs/cgroup/system.slice/docker-${containerId}.scope`, `/sys/fs/cgroup/docker/${containerId}`];
  for (const dir of v2) {
    if (!existsSync(`${dir}/memory.current`)) continue;
    const usage = Number((await readFile(`${dir}/memory.current`, 'utf8')).trim());
    return reading(usage, parseStat(await readFile(`${dir}/memory.stat`, 'utf8')), false, `cgroup v2 ${dir}`);
  }
  return undefined;
}

interface StatsResponse {
  memory_stats?: { usage?: number; stats?: Record<string, number> };
}

/** The Docker stats API, one shot (works with a remote engine too). */
export async function readStatsApi(docker: Docker, containerId: string): Promise<MemoryReading> {
  const stats = (await docker.getContainer(containerId).stats({ stream: false, 'one-shot': true } as { stream: false })) as StatsResponse;
  const usage = stats.memory_stats?.usage ?? Number.NaN;
  const raw = stats.memory_stats?.stats ?? {};
  const v1 = 'total_inactive_file' in raw;
  return reading(usage, new Map(Object.entries(raw)), v1, `Docker stats API (${v1 ? 'cgroup v1' : 'cgroup v2'})`);
}

export interface MemorySummary {
  sessions: number;
  restMs: number;
  source: string;
  medianMiB: { workingSet: number; usage: number; anon: number; cache: number; inactiveFile: number };
  perSessionMiB: number[];
  goals: Goal[];
}

export async function run(): Promise<MemorySummary> {
  const readings: MemoryReading[] = [];
  await withCore({ poolSize: 0, maxSessions: 32 }, async (sandpit) => {
    progress(`memory: starting ${SESSIONS} sessions`);
    const infos = await mapLimit(Array.from({ length: SESSIONS }), 4, () => newSession(sandpit, {}));
    progress(`memory: resting ${REST_MS} ms, then reading each container's memory cgroup`);
    await sleep(REST_MS);
    const api = new Docker(resolveEndpoint(sandpit.config.dockerHost).options);
    for (const info of infos) readings.push((await readCgroup(info.containerId)) ?? (await readStatsApi(api, info.containerId)));
  });

  const mib = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10;
  const med = (key: 'workingSet' | 'usage' | 'anon' | 'cache' | 'inactiveFile'): number => median(readings.map((r) => r[key]));
  const source = readings[0]?.source.replace(/\/sys\/fs\/cgroup\/\S+/, '<host cgroup dir>') ?? 'none';
  const workingSet = med('workingSet');

  process.stdout.write(`\n## memory per idle session (${SESSIONS} sessions, ${REST_MS / 1000} s after start; source: ${source})\n`);
  process.stdout.write(
    `${table(
      ['median per session', 'value', 'note'],
      [
        ['working set (usage − inactive_file)', formatMiB(workingSet), 'as `docker stats`; headline'],
        ['usage', formatMiB(med('usage')), 'includes all page cache (and kernel memory on v1)'],
        ['anon (rss)', formatMiB(med('anon')), 'the processes’ own memory'],
        ['page cache', formatMiB(med('cache')), `of which inactive: ${formatMiB(med('inactiveFile'))}`],
      ],
      ['l', 'r', 'l'],
    )}\n`,
  );
  process.stdout.write(`working set per session: ${readings.map((r) => mib(r.workingSet).toFixed(1)).join(', ')} MiB\n`);
  const goals = [goal('memory: idle session (working set, median)', '≤ 15 MiB', formatMiB(workingSet), workingSet <= 15 * 1024 * 1024)];
  process.stdout.write(`${goalTable(goals)}\n`);

  return {
    sessions: SESSIONS,
    restMs: REST_MS,
    source,
    medianMiB: { workingSet: mib(workingSet), usage: mib(med('usage')), anon: mib(med('anon')), cache: mib(med('cache')), inactiveFile: mib(med('inactiveFile')) },
    perSessionMiB: readings.map((r) => mib(r.workingSet)),
    goals,
  };
}
