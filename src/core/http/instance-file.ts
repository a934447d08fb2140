import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

/** `$SANDPIT_HOME/instance.json`: where a running Sandpit serves (the stdio bridge reads it to find one). */
export const instanceInfoSchema = z.object({
  /** Always a loopback http URL: the bridge sends the token there. */
  url: z.string().regex(/^http:\/\/(127\.0\.0\.1|\[::1\]):\d{1,5}$/),
  pid: z.number().int().positive(),
  startedAt: z.string(),
});
export type InstanceInfo = z.infer<typeof instanceInfoSchema>;

export function instanceFilePath(home: string): string {
  return join(home, 'instance.json');
}

/** Writes the file atomically with mode 0600 (temp file, then rename over). */
export async function writeInstanceFile(home: string, info: InstanceInfo): Promise<void> {
  const path = instanceFilePath(home);
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temp, `${JSON.stringify(instanceInfoSchema.parse(info))}\n`, { mode: 0o600, flag: 'wx' });
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
    const parsed = instanceInfoSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
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
    const current = instanceInfoSchema.safeParse(JSON.parse(readFileSync(instanceFilePath(home), 'utf8')));
    if (current.success && current.data.pid !== pid) return;
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
