import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { DockerClient } from '../core/docker/docker-client';
import { newId } from '../core/util/ids';
import { TEST_LABEL, helperSpec } from './package-index';

export const REGISTRY_ALIAS = 'npm-registry';
export const REGISTRY_PORT = 8080;

export interface NpmRegistry {
  /** The internal Docker network the registry is on (give it to the installer as installNetwork). */
  network: string;
  /** The registry URL as containers on `network` see it. */
  url: string;
  /** Package names the registry serves. */
  packages: string[];
  /** The registry container's address on `network`. */
  ip: string;
  /** Removes the registry container (and the network, when this helper made it). Safe to call more than once. */
  stop(): Promise<void>;
}

export interface NpmRegistryOptions {
  /** A python image (the sandpit/python executor image): the registry and its probe run in it. */
  image: string;
  /** Join this existing network (e.g. a package index's) instead of creating one; it is not removed on stop. */
  network?: string;
  /** How long the registry may take to answer (default 30 s). */
  readyTimeoutMs?: number;
}

const SERVER_SOURCE = fileURLToPath(new URL('./npm-registry-server.py', import.meta.url));

// Polls the registry from another container on the same network until it answers or the deadline
// passes; prints the package names it serves as JSON.
const PROBE = [
  'import sys, time, urllib.request',
  'url, deadline = sys.argv[1], time.monotonic() + float(sys.argv[2])',
  'while True:',
  '    try:',
  '        body = urllib.request.urlopen(url, timeout=2).read().decode()',
  '        break',
  '    except Exception as error:',
  '        if time.monotonic() > deadline:',
  "            print('registry not ready: %r' % (error,), file=sys.stderr)",
  '            sys.exit(1)',
  '        time.sleep(0.1)',
  'print(body.strip())',
].join('\n');

/**
 * Starts an npm registry with a few demo packages (see npm-registry-server.py) on a fresh `internal`
 * Docker network (no route out), or on `options.network`, reachable there as http://npm-registry:8080/.
 * Nothing here talks to any address but that network.
 */
export async function startNpmRegistry(docker: DockerClient, options: NpmRegistryOptions): Promise<NpmRegistry> {
  const suffix = newId('x', 5).slice(2);
  const network = options.network ?? `sandpit-test-net-${suffix}`;
  const url = `http://${REGISTRY_ALIAS}:${REGISTRY_PORT}/`;
  const source = await readFile(SERVER_SOURCE, 'utf8');
  let containerId: string | undefined;
  let networkId: string | undefined;

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      if (containerId) await docker.removeContainer(containerId);
      if (networkId) await docker.removeNetwork(networkId);
    })());

  try {
    if (!options.network) networkId = await docker.createNetwork({ name: network, labels: { [TEST_LABEL]: 'true' }, internal: true });
    const spec = helperSpec(`sandpit-test-npm-${suffix}`, options.image, network, ['python3', '-c', source]);
    spec.networkingConfig = { EndpointsConfig: { [network]: { Aliases: [REGISTRY_ALIAS] } } };
    containerId = await docker.createContainer(spec);
    await docker.startContainer(containerId);

    const readyMs = options.readyTimeoutMs ?? 30_000;
    const probe = await docker.runToCompletion(
      helperSpec(`sandpit-test-npmprobe-${suffix}`, options.image, network, ['python3', '-c', PROBE, `${url}-/sandpit/packages`, String(readyMs / 1000)]),
      { timeoutMs: readyMs + 15_000, maxOutputBytes: 64 * 1024 },
    );
    if (probe.timedOut || probe.exitCode !== 0) {
      const state = await docker.inspectContainer(containerId).catch(() => undefined);
      throw new Error(`The test npm registry did not answer at ${url} (probe exit ${probe.exitCode}, registry ${state?.status ?? 'gone'}): ${probe.stderr.trim().slice(-500)}`);
    }
    const packages = JSON.parse(probe.stdout.trim().split('\n').pop() ?? '[]') as string[];
    const ip = (await docker.inspectContainer(containerId)).ipAddress;
    if (!ip) throw new Error(`The test npm registry has no address on ${network}.`);
    return { network, url, packages, ip, stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}
