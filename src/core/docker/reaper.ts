import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../log';
import type { DockerClient } from './docker-client';
import { isOwnerDead } from '../sandbox/instance-identity';
import { LABEL } from './labels';
import type { InstanceIdentity } from '../sandbox/instance-identity';
import { reapDeadNetworks } from './network-reaper';

/** Which sessions some data folder keeps (their leftovers stay), and the run folder's entry holding their markers. */
export interface KeptSessions {
  isKept(sessionId: string): Promise<boolean>;
  markersDir: string;
}

export interface ReapReport {
  containers: string[];
  volumes: string[];
  /** Names of removed networks (the egress network). */
  networks: string[];
  dirs: string[];
}

function ownerOf(labels: Record<string, string>): { host?: string; pid?: string; start?: string; instance?: string } {
  return { host: labels[LABEL.ownerHost], pid: labels[LABEL.ownerPid], start: labels[LABEL.ownerStart], instance: labels[LABEL.instance] };
}

/**
 * Removes containers, volumes, networks and agent dirs that belong to dead Sandpit instances — and nothing
 * else: only resources carrying our managed label are even looked at. A kept session's container, volumes
 * and agent dir stay (kept by some data folder on this machine: `keptSessions`); its installers do not.
 */
export async function reapDeadInstances(docker: DockerClient, self: InstanceIdentity, runRoot: string, keptSessions: KeptSessions, log: Logger): Promise<ReapReport> {
  const report: ReapReport = { containers: [], volumes: [], networks: [], dirs: [] };
  const kept = (labels: Record<string, string>): Promise<boolean> => {
    const session = labels[LABEL.session];
    return session === undefined ? Promise.resolve(false) : keptSessions.isKept(session);
  };
  const containers = await docker.listContainers({ [LABEL.managed]: 'true' });
  for (const c of containers) {
    if (c.labels[LABEL.instance] === self.instanceId || !isOwnerDead(ownerOf(c.labels), self)) continue;
    if (c.labels[LABEL.role] !== 'installer' && (await kept(c.labels))) continue;
    log.info('reaping container of a dead instance', { containerId: c.id, instance: c.labels[LABEL.instance] });
    if (await attempt(() => docker.removeContainer(c.id), log, { containerId: c.id })) report.containers.push(c.id);
  }
  const volumes = await docker.listVolumes({ [LABEL.managed]: 'true' });
  for (const v of volumes) {
    if (v.labels[LABEL.instance] === self.instanceId || !isOwnerDead(ownerOf(v.labels), self) || (await kept(v.labels))) continue;
    log.info('reaping volume of a dead instance', { volume: v.name });
    if (await attempt(() => docker.removeVolume(v.name), log, { volume: v.name })) report.volumes.push(v.name);
  }
  // After the containers: a network with containers on it cannot be removed.
  report.networks = await reapDeadNetworks(docker, self, log);
  report.dirs = await reapAgentDirs(runRoot, self, keptSessions);
  return report;
}

/** One removal; a failure is logged and the reaper goes on with the rest. */
async function attempt(remove: () => Promise<void>, log: Logger, fields: Record<string, string>): Promise<boolean> {
  try {
    await remove();
    return true;
  } catch (error) {
    log.warn('reaper could not remove a leftover', { ...fields, error: error instanceof Error ? error.message : String(error) });
    return false;
  }
}

/** Agent dirs live in `<runRoot>/<instanceId>/` with an owner.json; dirs of dead owners go. */
async function reapAgentDirs(runRoot: string, self: InstanceIdentity, keptSessions: KeptSessions): Promise<string[]> {
  const removed: string[] = [];
  let names: string[];
  try {
    names = await readdir(runRoot);
  } catch {
    return removed;
  }
  for (const name of names) {
    if (name === self.instanceId || name === keptSessions.markersDir) continue;
    const dir = join(runRoot, name);
    try {
      const owner = JSON.parse(await readFile(join(dir, 'owner.json'), 'utf8')) as InstanceIdentity;
      if (!isOwnerDead({ host: owner.host, pid: String(owner.pid), start: owner.processStart, instance: owner.instanceId }, self)) continue;
    } catch {
      // No owner file: a half-made dir of a crashed instance — unless it is brand new (still being made).
      const age = await stat(dir).then((s) => Date.now() - s.mtimeMs, () => 0);
      if (age < 60_000) continue;
    }
    const entries = await readdir(dir).catch(() => [] as string[]);
    const kept: string[] = [];
    for (const entry of entries) if (await keptSessions.isKept(entry)) kept.push(entry);
    if (kept.length === 0) {
      await rm(dir, { recursive: true, force: true });
      removed.push(dir);
      continue;
    }
    // A kept session's agent folder is bind-mounted into its (stopped) container: it stays, with the owner file.
    for (const entry of entries) {
      if (kept.includes(entry) || entry === 'owner.json') continue;
      await rm(join(dir, entry), { recursive: true, force: true });
      removed.push(join(dir, entry));
    }
  }
  return removed;
}
