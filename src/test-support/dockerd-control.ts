import { spawn } from 'node:child_process';
import { openSync, readdirSync, readFileSync } from 'node:fs';
import type { DockerClient } from '../core/docker/docker-client';
import { pollUntil } from '../core/util/with-timeout';

export interface DockerdProcess {
  pid: number;
  argv: string[];
}

/** The local dockerd this test process may restart (root, same machine), or a reason why not. */
export function findRestartableDockerd(): DockerdProcess | string {
  if (process.getuid?.() !== 0) return 'restarting dockerd needs root';
  if (process.env.DOCKER_HOST && !process.env.DOCKER_HOST.startsWith('unix://')) return 'the engine is remote (DOCKER_HOST)';
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
      if (argv[0] && /(^|\/)dockerd$/.test(argv[0])) return { pid: Number(entry), argv };
    } catch {
      // a process that ended while we looked
    }
  }
  return 'no dockerd process on this machine (Docker Desktop or a VM-hosted engine)';
}

/** Stops dockerd with SIGTERM and waits until the process is gone. */
export async function stopDockerd(dockerd: DockerdProcess, timeoutMs = 60_000): Promise<void> {
  process.kill(dockerd.pid, 'SIGTERM');
  await pollUntil(() => {
    try {
      process.kill(dockerd.pid, 0);
      return undefined;
    } catch {
      return true;
    }
  }, timeoutMs, 'dockerd exit', 100);
}

/** Starts dockerd again with the same arguments, detached, logging to /tmp/dockerd.log, and waits for it. */
export async function startDockerd(dockerd: DockerdProcess, docker: DockerClient, timeoutMs = 60_000): Promise<void> {
  const log = openSync('/tmp/dockerd.log', 'a');
  const child = spawn(dockerd.argv[0]!, dockerd.argv.slice(1), { detached: true, stdio: ['ignore', log, log] });
  child.unref();
  await pollUntil(async () => ((await docker.ping(2_000).then(() => true, () => false)) ? true : undefined), timeoutMs, 'dockerd ready', 250);
}
