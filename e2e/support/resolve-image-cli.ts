/**
 * Prints the python-data executor image's tag on stdout (progress on stderr), building it from the cached
 * base when it is not up to date. Run with tsx (`images.ts` does): the image code finds executor-image/
 * through import.meta, which Playwright's CommonJS loader cannot run.
 */
import { join } from 'node:path';
import { DockerodeClient } from '../../src/core/docker/dockerode-client';
import { ensureExecutorImage } from '../../src/core/docker/image-builder';
import { silentLogger } from '../../src/core/log';

async function main(): Promise<void> {
  const flavour = process.argv[2] ?? 'python-data';
  const docker = new DockerodeClient({ logger: silentLogger });
  try {
    await docker.ping(10_000);
  } catch (error) {
    throw new Error(
      `The e2e tests need a running Docker engine: ${error instanceof Error ? error.message : String(error)}. ` +
        'Without systemd: (setsid dockerd >/tmp/dockerd.log 2>&1 &).',
    );
  }
  const imagesDir = process.env.SANDPIT_IMAGES_DIR || join(__dirname, '..', '..', 'executor-image');
  const tag = await ensureExecutorImage(docker, flavour, {
    imagesDir,
    onLog: (line) => process.stderr.write(`[images:${flavour}] ${line}\n`),
  });
  process.stdout.write(`${tag}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
