import { mkdtempSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DockerClient } from '../core/docker/docker-client';
import { DockerodeClient } from '../core/docker/dockerode-client';
import { silentLogger } from '../core/log';
import { LABEL } from '../core/docker/labels';
import { isSandpitError } from '../shared/api/errors';

/** The real engine (DOCKER_HOST or the local socket), logging nothing. */
export function testDocker(): DockerClient {
  return new DockerodeClient({ logger: silentLogger });
}

export interface TempHome {
  /** A fresh directory under os.tmpdir() to use as SANDPIT_HOME. */
  dir: string;
  /** Deletes the directory and everything in it. */
  cleanup(): Promise<void>;
}

/** A throw-away SANDPIT_HOME. It does not touch process.env: pass `dir` where a home is needed. */
export function tempHome(): TempHome {
  const dir = mkdtempSync(join(tmpdir(), 'sandpit-home-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true, maxRetries: 3 }) };
}

/** The sessions the last core of data folder `home` left for its next one (its warm-handover.json), none when it left none. */
export async function handedOver(home: string): Promise<string[]> {
  const text = await readFile(join(home, 'warm-handover.json'), 'utf8').catch(() => undefined);
  if (text === undefined) return [];
  return (JSON.parse(text) as { sandboxes: Array<{ sessionId: string }> }).sandboxes.map((s) => s.sessionId);
}

/** How many containers the Sandpit with process id `pid` made that it did not hand over to the next core of `home`. */
export async function containersNotHandedOver(pid: number, home: string): Promise<number> {
  const left = new Set(await handedOver(home));
  const made = await testDocker().listContainers({ [LABEL.ownerPid]: String(pid) });
  return made.filter((c) => !left.has(c.labels[LABEL.session] ?? '')).length;
}

/** Whether the engine still has a container with this id. */
export async function containerExists(containerId: string): Promise<boolean> {
  try {
    await testDocker().inspectContainer(containerId);
    return true;
  } catch (error) {
    if (isSandpitError(error, 'NOT_FOUND')) return false;
    throw error;
  }
}
