import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DockerClient } from '../core/docker/docker-client';
import { DockerodeClient } from '../core/docker/dockerode-client';
import { silentLogger } from '../core/log';

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
