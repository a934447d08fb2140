import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/** Who runs a Sandpit core: every container, volume and network it makes carries this (the reaper reads it). */
export interface InstanceIdentity {
  /** Random per running core. */
  instanceId: string;
  host: string;
  pid: number;
  /** The process's start time as the OS reports it (Linux: /proc/<pid>/stat field 22), '' when unknown. */
  processStart: string;
}

/** The start time of a process as the kernel reports it (Linux), or '' when it cannot be read. */
export function processStartTime(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? '';
  } catch {
    return '';
  }
}

export function currentIdentity(): InstanceIdentity {
  return { instanceId: randomUUID(), host: hostname(), pid: process.pid, processStart: processStartTime(process.pid) };
}

/** Instances that are alive in this process (a core disposed without cleanup is removed from here). */
const liveInstances = new Set<string>();

export function markInstanceAlive(instanceId: string): void {
  liveInstances.add(instanceId);
}

export function markInstanceDead(instanceId: string): void {
  liveInstances.delete(instanceId);
}

/**
 * Whether the owner recorded in a resource's labels is certainly gone. Unknown hosts are never
 * judged dead (we cannot see their processes), so their resources are left alone.
 */
export function isOwnerDead(labels: { host?: string; pid?: string; start?: string; instance?: string }, self: InstanceIdentity): boolean {
  if (!labels.host || labels.host !== self.host) return false;
  const pid = Number(labels.pid);
  if (!Number.isInteger(pid) || pid <= 0) return true;
  if (pid === self.pid && labels.start === self.processStart) {
    return labels.instance !== undefined && !liveInstances.has(labels.instance);
  }
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  const start = processStartTime(pid);
  return start !== '' && labels.start !== undefined && labels.start !== '' && start !== labels.start;
}
