/**
 * A Sandpit of a spec's own (`sandpit serve` with a fresh data folder on a fixed port): for what the shared
 * one must not go through — a first run, a stop and a restart, a Docker address set before it starts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestInfo } from '@playwright/test';
import { containersOwnedBy } from './images';
import { startServe } from './serve-process';
import type { ServeProcess } from './serve-process';
import type { ServerInfo } from './server-info';

export interface OwnSandpit {
  readonly info: ServerInfo;
  home: string;
  port: number;
  /** Stops it (SIGTERM, as Ctrl-C does). */
  stop(): Promise<void>;
  /** Starts it again on the same data folder and port. */
  start(): Promise<void>;
  /** Stops it, checks it left no container behind, removes its data folder. */
  dispose(): Promise<void>;
}

/** A port nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

export async function startOwnSandpit(
  testInfo: TestInfo,
  pythonImage: string,
  options: { settings?: Record<string, unknown>; env?: Record<string, string> } = {},
): Promise<OwnSandpit> {
  const home = mkdtempSync(join(tmpdir(), 'sandpit-e2e-own-'));
  if (options.settings) writeFileSync(join(home, 'settings.json'), `${JSON.stringify(options.settings, null, 2)}\n`);
  const port = await freePort();
  const logFile = testInfo.outputPath('own-sandpit.log');
  let serve: ServeProcess | undefined;
  const pids: number[] = [];
  const own: OwnSandpit = {
    get info(): ServerInfo {
      if (!serve) throw new Error('this Sandpit is not running');
      return serve.info;
    },
    home,
    port,
    stop: async () => {
      await serve?.stop();
      serve = undefined;
    },
    start: async () => {
      serve = await startServe({ home, pythonImage, logFile, port, ...(options.env ? { env: options.env } : {}) });
      pids.push(serve.info.pid);
    },
    dispose: async () => {
      await own.stop();
      const left = (await Promise.all(pids.map((pid) => containersOwnedBy(pid)))).flat();
      rmSync(home, { recursive: true, force: true, maxRetries: 3 });
      if (left.length > 0) throw new Error(`this spec's Sandpit left ${left.length} container(s) behind: ${left.join('; ')}`);
    },
  };
  await own.start();
  return own;
}
