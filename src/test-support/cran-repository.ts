import { fileURLToPath } from 'node:url';
import type { DockerClient } from '../core/docker/docker-client';
import { startTestServer } from './test-server-container';
import type { TestServer, TestServerOptions } from './test-server-container';

export const CRAN_ALIAS = 'cran-repo';
export const CRAN_PORT = 8080;

/** A running test repository: `url` is the CRAN-style repository URL (what install.packages takes as `repos`), `packages` the names it serves. */
export type CranRepository = TestServer;

/** `network`: join an existing network instead of creating one; it is not removed on stop. */
export type CranRepositoryOptions = TestServerOptions;

const REPOSITORY_URL = `http://${CRAN_ALIAS}:${CRAN_PORT}/`;

/**
 * Starts a CRAN-style repository with two pure-R demo packages (see cran-repository-server.py: sandpitdemo,
 * and sandpitdemoplus, which imports it) on a fresh `internal` Docker network (no route out), or on
 * `options.network`, reachable there as http://cran-repo:8080/. Nothing here talks to any address but that network.
 */
export async function startCranRepository(docker: DockerClient, options: CranRepositoryOptions): Promise<CranRepository> {
  return startTestServer(
    docker,
    {
      title: 'CRAN repository',
      role: 'repository',
      serverSource: fileURLToPath(new URL('./cran-repository-server.py', import.meta.url)),
      containerName: 'sandpit-test-cran',
      probeName: 'sandpit-test-cranprobe',
      alias: CRAN_ALIAS,
      url: REPOSITORY_URL,
      probeUrl: `${REPOSITORY_URL}src/contrib/PACKAGES`,
      report: "print(json.dumps(re.findall(r'^Package: (\\S+)$', body, re.M)))",
    },
    options,
  );
}
