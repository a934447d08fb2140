import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { DEFAULT_LIMITS } from '../shared/domain/limits';
import { hardenedContainerSpec } from '../core/docker/container-profile';
import type { ContainerSpec, DockerClient } from '../core/docker/docker-client';
import { newId } from '../core/util/ids';

/** Label on every network and container the test helpers create (none of them is Sandpit-managed). */
export const TEST_LABEL = 'dev.sandpit.test';
export const INDEX_ALIAS = 'pypi-index';
export const INDEX_PORT = 8080;

export interface PackageIndex {
  /** Name of the internal Docker network the index is on (give it to the installer as installNetwork). */
  network: string;
  /** The PEP 503 simple index as containers on `network` see it. */
  url: string;
  /** Project names the index serves (as listed by /simple/). */
  packages: string[];
  /** The index container's address on `network` (the host reaches it directly; containers on other networks do not). */
  ip: string;
  /** Removes the index container and the network. Safe to call more than once. */
  stop(): Promise<void>;
}

export interface PackageIndexOptions {
  /** A python image (the sandpit/python executor image): the index and its probe run in it. */
  image: string;
  /** How long the index may take to answer (default 30 s). */
  readyTimeoutMs?: number;
}

const SERVER_SOURCE = fileURLToPath(new URL('./package-index-server.py', import.meta.url));

// Polls the index from another container on the same network until it answers or the deadline
// passes; prints the project names from /simple/ as JSON.
const PROBE = [
  'import json, re, sys, time, urllib.request',
  'url, deadline = sys.argv[1], time.monotonic() + float(sys.argv[2])',
  'while True:',
  '    try:',
  '        body = urllib.request.urlopen(url, timeout=2).read().decode()',
  '        break',
  '    except Exception as error:',
  '        if time.monotonic() > deadline:',
  "            print('index not ready: %r' % (error,), file=sys.stderr)",
  '            sys.exit(1)',
  '        time.sleep(0.1)',
  "print(json.dumps(re.findall(r'<a href=\"[^\"]*\">([^<]+)</a>', body)))",
].join('\n');

/** A hardened container for a test helper (an index, a probe) on `network`, working in /tmp. */
export function helperSpec(name: string, image: string, network: string, cmd: string[]): ContainerSpec {
  const spec = hardenedContainerSpec({
    name,
    image,
    limits: { ...DEFAULT_LIMITS, memoryMb: 256, pids: 64, tmpMb: 16 },
    labels: { [TEST_LABEL]: 'true' },
    network,
    cmd,
    env: { PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1' },
  });
  spec.openStdin = false;
  spec.workingDir = '/tmp';
  return spec;
}

/**
 * Starts a PEP 503 index with a few demo wheels (see package-index-server.py) on a fresh
 * `internal` Docker network (no route out), reachable there as http://pypi-index:8080/simple.
 * Nothing here talks to any address but that network.
 */
export async function startPackageIndex(docker: DockerClient, options: PackageIndexOptions): Promise<PackageIndex> {
  const suffix = newId('x', 5).slice(2);
  const network = `sandpit-test-net-${suffix}`;
  const url = `http://${INDEX_ALIAS}:${INDEX_PORT}/simple`;
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
    networkId = await docker.createNetwork({ name: network, labels: { [TEST_LABEL]: 'true' }, internal: true });
    const spec = helperSpec(`sandpit-test-pypi-${suffix}`, options.image, network, ['python3', '-c', source]);
    spec.networkingConfig = { EndpointsConfig: { [network]: { Aliases: [INDEX_ALIAS] } } };
    containerId = await docker.createContainer(spec);
    await docker.startContainer(containerId);

    const readyMs = options.readyTimeoutMs ?? 30_000;
    const probe = await docker.runToCompletion(
      helperSpec(`sandpit-test-probe-${suffix}`, options.image, network, ['python3', '-c', PROBE, `${url}/`, String(readyMs / 1000)]),
      { timeoutMs: readyMs + 15_000, maxOutputBytes: 64 * 1024 },
    );
    if (probe.timedOut || probe.exitCode !== 0) {
      const state = await docker.inspectContainer(containerId).catch(() => undefined);
      throw new Error(`The test package index did not answer at ${url} (probe exit ${probe.exitCode}, index ${state?.status ?? 'gone'}): ${probe.stderr.trim().slice(-500)}`);
    }
    const packages = JSON.parse(probe.stdout.trim().split('\n').pop() ?? '[]') as string[];
    const ip = (await docker.inspectContainer(containerId)).ipAddress;
    if (!ip) throw new Error(`The test package index has no address on ${network}.`);
    return { network, url, packages, ip, stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}
