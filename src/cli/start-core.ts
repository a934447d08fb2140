import { createSandpit } from '../core/app';
import type { Sandpit } from '../core/app';
import { defaultConfig } from '../core/config';
import type { SandpitConfig } from '../core/config';
import { DockerodeClient } from '../core/docker/dockerode-client';
import { resolveExecutorImages } from '../core/docker/resolve-images';
import { startHttpServer } from '../core/http/http-server';
import type { HttpMount, RunningHttpServer } from '../core/http/http-server';
import { removeInstanceFile, removeInstanceFileSync, writeInstanceFile } from '../core/http/instance-file';
import { loadOrCreateToken, tokenPath } from '../core/http/token';
import { createLogger } from '../core/log';
import { withStoredSettings } from '../core/settings/load-settings';

/** Builds the headless core for the CLI: config from the environment, images that are built. */
export async function startCore(overrides: Partial<SandpitConfig> = {}): Promise<{ sandpit: Sandpit; notes: string[] }> {
  const logger = createLogger({ app: 'sandpit' });
  // The person's settings over the defaults; what the command line says over both.
  const stored = await withStoredSettings(defaultConfig(), logger);
  const base: SandpitConfig = { ...stored.config, ...overrides };
  const docker = new DockerodeClient({ host: base.dockerHost, logger });
  let notes: string[] = [];
  let images = base.images;
  try {
    const resolved = await resolveExecutorImages(docker);
    images = { ...resolved.images, ...base.images };
    notes = resolved.missing;
  } catch (error) {
    notes = [error instanceof Error ? error.message : String(error)];
  }
  const sandpit = await createSandpit({ ...base, images }, { logger, docker, settings: stored.settings });
  return { sandpit, notes };
}

export interface ServedHttp {
  http: RunningHttpServer;
  /** The bearer token (for the panel link printed to the terminal; never to a log). */
  token: string;
  tokenFile: string;
  /** Removes instance.json and closes the server. */
  close(): Promise<void>;
}

/**
 * The HTTP surface of a core: loads (or creates) the access token, listens on 127.0.0.1:port and records
 * the instance in $SANDPIT_HOME/instance.json (removed on close, and on process exit at the latest).
 */
export async function serveHttp(sandpit: Sandpit, port: number, mounts: readonly HttpMount[] = []): Promise<ServedHttp> {
  const { home } = sandpit.config;
  const token = await loadOrCreateToken(home, sandpit.log);
  const http = await startHttpServer({ sandpit, port, token, mounts });
  const detach = sandpit.endpoint.attach(http);
  await writeInstanceFile(home, { url: http.url, pid: process.pid, startedAt: new Date().toISOString() });
  const onExit = (): void => removeInstanceFileSync(home);
  process.once('exit', onExit);
  return {
    http,
    token,
    tokenFile: tokenPath(home),
    close: async () => {
      process.off('exit', onExit);
      detach();
      await removeInstanceFile(home).catch(() => undefined);
      await http.close();
    },
  };
}

/** Resolves on SIGINT/SIGTERM after disposing the core (bounded by a timeout). */
export function untilSignal(dispose: () => Promise<void>, timeoutMs = 20_000): Promise<void> {
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      const timer = setTimeout(resolve, timeoutMs);
      timer.unref();
      dispose().then(resolve, resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
