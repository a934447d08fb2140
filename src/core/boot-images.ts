import type { SandpitConfig } from './config';
import type { DockerClient } from './docker/docker-client';
import { resolveExecutorImages } from './docker/resolve-images';
import { withTimeout } from './util/with-timeout';

/** How long the engine has to answer before the core starts without looking up its images. */
const ENGINE_PROBE_MS = 3_000;
/** How long finding the built images may take before the core starts without them. */
const IMAGE_LOOKUP_MS = 10_000;

/**
 * The executor image of each flavour for this start: the built ones, under SANDPIT_PYTHON_IMAGE (the python
 * flavour's image, e.g. the python-data one), under the config's own. Never builds and never throws: without an
 * image, "create session" answers IMAGE_MISSING, which tells the person to build the images.
 */
export async function startImages(
  docker: DockerClient,
  config: Pick<SandpitConfig, 'images'>,
  imagesDir: string | undefined,
  env: NodeJS.ProcessEnv,
  timeouts: { probeMs: number; lookupMs: number } = { probeMs: ENGINE_PROBE_MS, lookupMs: IMAGE_LOOKUP_MS },
): Promise<{ images: SandpitConfig['images']; notes: string[] }> {
  const pythonImage = env.SANDPIT_PYTHON_IMAGE?.trim();
  const chosen = { ...(pythonImage ? { python: pythonImage } : {}), ...config.images };
  try {
    // An engine that does not answer is not asked about each image (each would wait out its own timeout):
    // the core starts at once, says the engine is down, and finds the images when it is back.
    await docker.ping(timeouts.probeMs);
    const resolved = await withTimeout(resolveExecutorImages(docker, imagesDir), timeouts.lookupMs, 'finding the sandbox images');
    return { images: { ...resolved.images, ...chosen }, notes: resolved.missing };
  } catch (error) {
    return { images: chosen, notes: [error instanceof Error ? error.message : String(error)] };
  }
}
