/**
 * `start`: starts the test PEP 503 index (src/test-support/package-index.ts: demo wheels on its own
 * internal Docker network) and prints `{url, network, ip}` as JSON; the container keeps running.
 * `stop <network>`: removes that index container and its network. Run with tsx (`package-index.ts`
 * does): the index code finds its server source through import.meta, which Playwright's loader cannot run.
 */
import { join } from 'node:path';
import { DockerodeClient } from '../../src/core/docker/dockerode-client';
import { ensureExecutorImage } from '../../src/core/docker/image-builder';
import { silentLogger } from '../../src/core/log';
import { startPackageIndex } from '../../src/test-support/package-index';
import { TEST_LABEL } from '../../src/test-support/test-server-container';

async function main(): Promise<void> {
  const docker = new DockerodeClient({ logger: silentLogger });
  const [command, network] = process.argv.slice(2);
  if (command === 'stop' && network) {
    for (const c of await docker.listContainers({ [TEST_LABEL]: 'true' })) {
      const info = await docker.inspectContainer(c.id).catch(() => undefined);
      if (info && c.names.some((n) => n.includes('sandpit-test-pypi'))) await docker.removeContainer(c.id);
    }
    await docker.removeNetwork(network);
    return;
  }
  const imagesDir = process.env.SANDPIT_IMAGES_DIR || join(__dirname, '..', '..', 'executor-image');
  const image = await ensureExecutorImage(docker, 'python', { imagesDir });
  const index = await startPackageIndex(docker, { image });
  process.stdout.write(`${JSON.stringify({ url: index.url, network: index.network, ip: index.ip })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
