import { fileURLToPath } from 'node:url';
import type { DockerClient } from '../core/docker/docker-client';
import { startTestServer } from './test-server-container';
import type { TestServer, TestServerOptions } from './test-server-container';

export const INDEX_ALIAS = 'pypi-index';
export const INDEX_PORT = 8080;

/** A running test index: `url` is the PEP 503 simple index, `packages` the project names /simple/ lists. */
export type PackageIndex = TestServer;

/** The index always gets a network of its own (removed on stop). */
export type PackageIndexOptions = Omit<TestServerOptions, 'network'>;

const INDEX_URL = `http://${INDEX_ALIAS}:${INDEX_PORT}/simple`;

/**
 * Starts a PEP 503 index with a few demo wheels (see package-index-server.py) on a fresh
 * `internal` Docker network (no route out), reachable there as http://pypi-index:8080/simple.
 * Nothing here talks to any address but that network.
 */
export async function startPackageIndex(docker: DockerClient, options: PackageIndexOptions): Promise<PackageIndex> {
  return startTestServer(
    docker,
    {
      title: 'package index',
      role: 'index',
      serverSource: fileURLToPath(new URL('./package-index-server.py', import.meta.url)),
      containerName: 'sandpit-test-pypi',
      probeName: 'sandpit-test-probe',
      alias: INDEX_ALIAS,
      url: INDEX_URL,
      probeUrl: `${INDEX_URL}/`,
      report: "print(json.dumps(re.findall(r'<a href=\"[^\"]*\">([^<]+)</a>', body)))",
    },
    { image: options.image, readyTimeoutMs: options.readyTimeoutMs },
  );
}
