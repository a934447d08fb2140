import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** `$SANDPIT_HOME/instance.json`: where a running Sandpit serves (the stdio bridge reads it to find one). */
export interface InstanceInfo {
  /** Always a loopback http URL: the bridge sends the token there. */
  url: string;
  pid: number;
  startedAt: string;
}

const LOOPBACK_URL = /^http:\/\/(127\.0\.0\.1|\[::1\]):\d{1,5}$/;

/**
 * `value` as an InstanceInfo, or undefined when it is not one (checked by hand, not with zod: the bridge
 * reads this before it answers its client, and loading zod would be most of that time).
 */
export function parseInstanceInfo(value: unknown): InstanceInfo | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { url, pid, startedAt } = value as Record<string, unknown>;
  if (typeof url !== 'string' || !LOOPBACK_URL.test(url)) return undefined;
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return undefined;
  if (typeof startedAt !== 'string') return undefined;
  return { url, pid, startedAt };
}

export function instanceFilePath(home: string): string {
  return join(home, 'instance.json');
}

/** Writes the file atomically with mode 0600 (temp file, then rename over). */
export async function writeInstanceFile(home: string, info: InstanceInfo): Promise<void> {
  const path = instanceFilePath(home);
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const checked = parseInstanceInfo(info);
    if (!checked) throw new Error(`Not an instance record: ${JSON.stringify(info)}`);
    await writeFile(temp, `${JSON.stringify(checked)}\n`, { mode: 0o600, flag: 'wx' });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** The recorded instance, or undefined when there is none or the file is unreadable. Says nothing about whether it still runs. */
export async function readInstanceFile(home: string): Promise<InstanceInfo | undefined> {
  let text: string;
  try {
    text = await readFile(instanceFilePath(home), 'utf8');
  } catch {
    return undefined;
  }
  try {
    return parseInstanceInfo(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/** Removes the file, but only when it still describes process `pid` (a newer instance may have replaced it). */
export async function removeInstanceFile(home: string, pid: number = process.pid): Promise<void> {
  const current = await readInstanceFile(home);
  if (current !== undefined && current.pid !== pid) return;
  await rm(instanceFilePath(home), { force: true });
}

/** The same, synchronously: for a process 'exit' handler, where nothing asynchronous runs any more. */
export function removeInstanceFileSync(home: string, pid: number = process.pid): void {
  try {
    const current = parseInstanceInfo(JSON.parse(readFileSync(instanceFilePath(home), 'utf8')));
    if (current && current.pid !== pid) return;
    rmSync(instanceFilePath(home), { force: true });
  } catch {
    // Already gone or unreadable: nothing of ours to remove.
  }
}

/** Whether process `pid` is alive (signal 0 probes without signalling). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
