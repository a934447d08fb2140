/** What every benchmark needs: a real core on the real engine, cleaned up whatever happens. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createSandpit } from '../src/core/app';
import type { Sandpit } from '../src/core/app';
import { defaultConfig } from '../src/core/config';
import type { SandpitConfig } from '../src/core/config';
import { DockerodeClient } from '../src/core/docker/dockerode-client';
import { resolveExecutorImages } from '../src/core/docker/resolve-images';
import { silentLogger } from '../src/core/log';

/** Progress goes to stderr; results (tables) go to stdout. */
export function progress(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

export function now(): number {
  return performance.now();
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

let imagePromise: Promise<string> | undefined;

/** The built python executor image (never builds: `npm run build:images` does). */
export function pythonImage(): Promise<string> {
  imagePromise ??= (async () => {
    const docker = new DockerodeClient({ logger: silentLogger });
    const resolved = await resolveExecutorImages(docker);
    const image = resolved.images.python;
    if (!image) throw new Error(`No python executor image: ${resolved.missing.join(' ')} (run "npm run build:images").`);
    return image;
  })();
  return imagePromise;
}

const live = new Set<() => Promise<void>>();

/** Disposes every core still open (used on SIGINT/SIGTERM and after a crash). */
export async function disposeAll(): Promise<void> {
  await Promise.all([...live].map((close) => close().catch(() => undefined)));
}

/**
 * Runs `body` with a fresh core (throw-away data folder, silent logger, no warm pool unless asked)
 * and always disposes it afterwards, even when `body` throws.
 */
export async function withCore<T>(overrides: Partial<SandpitConfig>, body: (sandpit: Sandpit) => Promise<T>): Promise<T> {
  const home = await mkdtemp(join(tmpdir(), 'sandpit-bench-'));
  const image = await pythonImage();
  let sandpit: Sandpit | undefined;
  const close = async (): Promise<void> => {
    live.delete(close);
    try {
      await sandpit?.dispose();
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  };
  live.add(close);
  try {
    sandpit = await createSandpit(defaultConfig({ home, poolSize: 0, images: { python: image }, ...overrides }), { logger: silentLogger });
    if (sandpit.engine.current.state !== 'up') throw new Error(`The Docker engine is not up: ${JSON.stringify(sandpit.engine.current)}`);
    return await body(sandpit);
  } finally {
    await close();
  }
}

/** Waits until every warm pool of the core holds `size` ready (handshaken) containers. */
export async function waitForFullPool(sandpit: Sandpit, size: number, timeoutMs = 120_000): Promise<number> {
  const started = now();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pools = sandpit.sessions.poolStatus();
    if (pools.length > 0 && pools.every((p) => p.ready >= size)) return now() - started;
    if (Date.now() > deadline) throw new Error(`The warm pool did not fill to ${size} within ${timeoutMs} ms (${pools.map((p) => p.ready).join(', ') || 'no pool'}).`);
    await sleep(10);
  }
}

/** Runs `fn` over `items` with at most `limit` at once; results in input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
