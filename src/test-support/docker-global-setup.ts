import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import type { TestProject } from 'vitest/node';
import { dockerFixHint } from '../core/docker/docker-errors';
import { DockerodeClient, resolveEndpoint } from '../core/docker/dockerode-client';
import { dockerfilePath } from '../core/docker/build-context';
import { loadFlavour } from '../core/docker/image-bases';
import { defaultImagesDir, ensureExecutorImage } from '../core/docker/image-builder';
import { silentLogger } from '../core/log';
import { FLAVOURS } from '../shared/domain/languages';
import { providePodman } from './podman-engine';
import type { ProvidedImages } from './provided-context';

/**
 * globalSetup of the `docker` vitest project: the engine must answer (no silent skipping), and the
 * executor images (every flavour of the registry) whose Dockerfile exists are built once (or found up to date) and provided as `images`.
 * SANDPIT_IMAGES_DIR points it at another executor-image/ directory.
 */
export default async function setup(project: TestProject): Promise<void> {
  const docker = new DockerodeClient({ logger: silentLogger });
  try {
    await docker.ping(10_000);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    const hint = dockerFixHint(docker.endpoint);
    throw new Error(
      `Docker is required for the integration tests (vitest project "docker"), but the engine at ${docker.endpoint.address} did not answer: ${why}\n` +
        `${why.includes(hint) ? '' : `${hint} `}Without systemd: (setsid dockerd >/tmp/dockerd.log 2>&1 &). ` +
        'To run only the tests that need no Docker: npm run test:unit.',
    );
  }

  const imagesDir = process.env.SANDPIT_IMAGES_DIR || defaultImagesDir();
  const images: ProvidedImages = {};
  for (const flavour of FLAVOURS) {
    const definition = await loadFlavour(imagesDir, flavour);
    if (!existsSync(join(imagesDir, dockerfilePath(definition)))) {
      process.stderr.write(`[images] no ${dockerfilePath(definition)} yet: not providing the ${flavour} image\n`);
      continue;
    }
    const started = Date.now();
    images[flavour] = await ensureExecutorImage(docker, flavour, {
      imagesDir,
      onLog: (line) => process.stderr.write(`[images:${flavour}] ${line}\n`),
    });
    process.stderr.write(`[images] ${flavour}: ${images[flavour]} (${Date.now() - started} ms)\n`);
  }
  project.provide('images', images);
  // The core tests that run on every engine need the python image only.
  const podman = await providePodman(new Docker(resolveEndpoint(undefined).options), images, ['python']);
  process.stderr.write(`[engines] podman: ${'skip' in podman ? `not used: ${podman.skip}` : `Podman ${podman.version} at ${podman.host}`}\n`);
  project.provide('podman', podman);
}
