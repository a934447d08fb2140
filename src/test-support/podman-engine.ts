import { existsSync } from 'node:fs';
import type { Readable } from 'node:stream';
import Docker from 'dockerode';
import { DockerodeClient } from '../core/docker/dockerode-client';
import { silentLogger } from '../core/log';
import { withTimeout } from '../core/util/with-timeout';
import type { ProvidedImages, ProvidedPodman } from './provided-context';

/** Where the tests look for Podman's Docker-compatible service (`.ci/run` starts it there). */
export const PODMAN_TEST_HOST = process.env.SANDPIT_TEST_PODMAN_HOST || 'unix:///tmp/podman.sock';


const LOAD_TIMEOUT_MS = 180_000;

function socketPath(host: string): string | undefined {
  return host.startsWith('unix://') ? host.slice('unix://'.length) : undefined;
}

/**
 * Finds Podman at PODMAN_TEST_HOST and gives it the images the tests need, moved over from the Docker
 * engine through both APIs (`docker save | podman load`) when it lacks them. Never throws: a Podman that is
 * absent or broken gives a skip reason that the skipped cases show.
 */
export async function providePodman(docker: Docker, images: ProvidedImages, flavours: ReadonlyArray<keyof ProvidedImages>): Promise<ProvidedPodman> {
  const path = socketPath(PODMAN_TEST_HOST);
  const start = 'start it with: podman system service --time=0 unix:///tmp/podman.sock (Debian: apt-get install podman catatonit; .ci/run does both)';
  if (path && !existsSync(path)) return { skip: `no Podman service at ${PODMAN_TEST_HOST}; ${start}` };
  const client = new DockerodeClient({ host: PODMAN_TEST_HOST, logger: silentLogger });
  let version: string;
  try {
    const v = await client.ping(10_000);
    if (v.product !== 'podman') return { skip: `the engine at ${PODMAN_TEST_HOST} is not Podman (it is Docker ${v.version})` };
    version = v.version;
  } catch (error) {
    return { skip: `the Podman service at ${PODMAN_TEST_HOST} did not answer (${error instanceof Error ? error.message : String(error)}); ${start}` };
  }
  const podman = new Docker(path ? { socketPath: path } : { host: PODMAN_TEST_HOST });
  const provided: ProvidedImages = {};
  for (const flavour of flavours) {
    const tag = images[flavour];
    if (!tag) continue;
    try {
      if (!(await client.imageExists(tag))) {
        const started = Date.now();
        await withTimeout(moveImage(docker, podman, tag), LOAD_TIMEOUT_MS, `moving ${tag} to Podman`);
        process.stderr.write(`[images] podman: loaded ${tag} from Docker (${Date.now() - started} ms)\n`);
      }
      provided[flavour] = tag;
    } catch (error) {
      return { skip: `could not move ${tag} from Docker to Podman: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
  return { host: PODMAN_TEST_HOST, images: provided, version };
}

async function moveImage(docker: Docker, podman: Docker, tag: string): Promise<void> {
  const tar = (await docker.getImage(tag).get()) as Readable;
  const answer = (await podman.loadImage(tar)) as Readable;
  await new Promise<void>((resolve, reject) => {
    answer.on('error', reject);
    answer.on('end', () => resolve());
    answer.resume();
  });
}
