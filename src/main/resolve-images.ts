import type { SandpitConfig } from '../core/config';
import type { DockerClient } from '../core/docker/docker-client';
import { resolveExecutorImages } from '../core/docker/resolve-images';
import type { Logger } from '../core/log';
import { withTimeout } from '../core/util/with-timeout';

export interface ResolveImagesOptions {
  docker: DockerClient;
  /** The `executor-image/` directory shipped with the app. */
  imagesDir: string;
  log: Logger;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/**
 * The executor image per language for this start: the images that are already built (the core's
 * resolveExecutorImages), with SANDPIT_PYTHON_IMAGE overriding python. Never builds and never throws:
 * without an image, "create session" answers IMAGE_MISSING, which tells the person to build the images.
 */
export async function resolveImages(options: ResolveImagesOptions): Promise<SandpitConfig['images']> {
  const { docker, imagesDir, log, env = process.env, timeoutMs = 10_000 } = options;
  const fromEnv = env.SANDPIT_PYTHON_IMAGE?.trim();
  if (fromEnv) return { python: fromEnv };
  try {
    const { images, missing } = await withTimeout(
      resolveExecutorImages(docker, imagesDir),
      timeoutMs,
      'finding the sandbox images',
    );
    for (const note of missing) log.warn('sandbox image missing', { note });
    return images;
  } catch (error) {
    log.warn('could not look for the sandbox images', {
      error: error instanceof Error ? error.message : String(error),
    });
    return {};
  }
}
