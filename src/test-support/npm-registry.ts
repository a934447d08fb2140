import { fileURLToPath } from 'node:url';
import type { DockerClient } from '../core/docker/docker-client';
import { startTestServer } from './test-server-container';
import type { TestServer, TestServerOptions } from './test-server-container';

export const REGISTRY_ALIAS = 'npm-registry';
export const REGISTRY_PORT = 8080;

/** A running test registry: `url` is the npm registry URL, `packages` the package names it serves. */
export type NpmRegistry = TestServer;

/** `network`: join an existing network (e.g. a package index's) instead of creating one; it is not removed on stop. */
export type NpmRegistryOptions = TestServerOptions;

const REGISTRY_URL = `http://${REGISTRY_ALIAS}:${REGISTRY_PORT}/`;

/**
 * Starts an npm registry with a few demo packages (see npm-registry-server.py) on a fresh `internal`
 * Docker network (no route out), or on `options.network`, reachable there as http://npm-registry:8080/.
 * Nothing here talks to any address but that network.
 */
export async function startNpmRegistry(docker: DockerClient, options: NpmRegistryOptions): Promise<NpmRegistry> {
  return startTestServer(
    docker,
    {
      title: 'npm registry',
      role: 'registry',
      serverSource: fileURLToPath(new URL('./npm-registry-server.py', import.meta.url)),
      containerName: 'sandpit-test-npm',
      probeName: 'sandpit-test-npmprobe',
      alias: REGISTRY_ALIAS,
      url: REGISTRY_URL,
      probeUrl: `${REGISTRY_URL}-/sandpit/packages`,
      report: 'print(body.strip())',
    },
    options,
  );
}
