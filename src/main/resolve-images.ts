import type { SandpitConfig } from '../core/config';
import type { DockerClient } from '../core/docker/docker-client';
import { executorImageTag } from '../core/docker/image-builder';
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
 * The executor image per language for this start. SANDPIT_PYTHON_IMAGE wins; otherwise the python image
 * is used when it is already built. Never builds and never throws: with no image the panel's
 * "create session" answers IMAGE_MISSING, which says to build the images.
 */
export async function resolveImages(options: ResolveImagesOptions): Promise<SandpitConfig['images']> {
  const { docker, imagesDir, log, env = process.env, timeoutMs = 5_000 } = options;
  const fromEnv = env.SANDPIT_PYTHON_IMAGE?.trim();
  if (fromEnv) return { python: fromEnv };
  try {
    const tag = await withTimeout(executorImageTag(docker, 'python', { imagesDir }), timeoutMs, 'finding the python executor image');
    if (await withTimeout(docker.imageExists(tag), timeoutMs, 'checking the python executor image')) return { python: tag };
    log.info('python executor image is not built yet', { tag });
  } catch (error) {
    log.info('no python executor image', { error: error instanceof Error ? error.message : String(error) });
  }
  return {};
}
