import { readFile } from 'node:fs/promises';
import { DEFAULT_LIMITS } from '../shared/domain/limits';
import { hardenedContainerSpec } from '../core/docker/container-profile';
import type { ContainerSpec, DockerClient } from '../core/docker/docker-client';
import { newId } from '../core/util/ids';

/** Label on every network and container the test helpers create (none of them is Sandpit-managed). */
export const TEST_LABEL = 'dev.sandpit.test';

/** A test server (a package index, an npm registry) running in a container on an internal network. */
export interface TestServer {
  /** The internal Docker network the server is on (give it to the installer as installNetwork). */
  network: string;
  /** The server's URL as containers on `network` see it. */
  url: string;
  /** Package names the server serves. */
  packages: string[];
  /** The server container's address on `network` (the host reaches it directly; containers on other networks do not). */
  ip: string;
  /** Removes the server container (and the network, when this helper made it). Safe to call more than once. */
  stop(): Promise<void>;
}

export interface TestServerOptions {
  /** A python image (the sandpit/python executor image): the server and its probe run in it. */
  image: string;
  /** Join this existing network (e.g. another test server's) instead of creating one; it is not removed on stop. */
  network?: string;
  /** How long the server may take to answer (default 30 s). */
  readyTimeoutMs?: number;
}

/** What tells one test server from another. */
export interface TestServerKind {
  /** How messages name it: `package index` ("The test package index did not answer…"). */
  title: string;
  /** How the probe's and the status messages call it: `index`. */
  role: string;
  /** Path of the server's Python source (one file, run with `python3 -c`). */
  serverSource: string;
  /** Container names, each followed by `-<suffix>`: the server's, the probe's. */
  containerName: string;
  probeName: string;
  /** The server's name on the network. */
  alias: string;
  url: string;
  /** What the probe polls until it answers. */
  probeUrl: string;
  /** The probe's last Python line: prints the package names, as JSON, from `body` (what probeUrl answered). */
  report: string;
}

/** A hardened container for a test helper (a server, a probe) on `network`, working in /tmp. */
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

// Polls the server from another container on the same network until it answers or the deadline
// passes; then `report` prints the package names as JSON.
function probeSource(kind: TestServerKind): string {
  return [
    'import json, re, sys, time, urllib.request',
    'url, deadline = sys.argv[1], time.monotonic() + float(sys.argv[2])',
    'while True:',
    '    try:',
    '        body = urllib.request.urlopen(url, timeout=2).read().decode()',
    '        break',
    '    except Exception as error:',
    '        if time.monotonic() > deadline:',
    `            print('${kind.role} not ready: %r' % (error,), file=sys.stderr)`,
    '            sys.exit(1)',
    '        time.sleep(0.1)',
    kind.report,
  ].join('\n');
}

/**
 * Starts the server on a fresh `internal` Docker network (no route out), or on `options.network`, reachable
 * there by its alias, and waits until a probe on that network gets an answer.
 * Nothing here talks to any address but that network.
 */
export async function startTestServer(docker: DockerClient, kind: TestServerKind, options: TestServerOptions): Promise<TestServer> {
  const suffix = newId('x', 5).slice(2);
  const network = options.network ?? `sandpit-test-net-${suffix}`;
  const { url } = kind;
  const source = await readFile(kind.serverSource, 'utf8');
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
    const spec = helperSpec(`${kind.containerName}-${suffix}`, options.image, network, ['python3', '-c', source]);
    spec.networkingConfig = { EndpointsConfig: { [network]: { Aliases: [kind.alias] } } };
    containerId = await docker.createContainer(spec);
    await docker.startContainer(containerId);

    const readyMs = options.readyTimeoutMs ?? 30_000;
    const probe = await docker.runToCompletion(
      helperSpec(`${kind.probeName}-${suffix}`, options.image, network, ['python3', '-c', probeSource(kind), kind.probeUrl, String(readyMs / 1000)]),
      { timeoutMs: readyMs + 15_000, maxOutputBytes: 64 * 1024 },
    );
    if (probe.timedOut || probe.exitCode !== 0) {
      const state = await docker.inspectContainer(containerId).catch(() => undefined);
      throw new Error(`The test ${kind.title} did not answer at ${url} (probe exit ${probe.exitCode}, ${kind.role} ${state?.status ?? 'gone'}): ${probe.stderr.trim().slice(-500)}`);
    }
    const packages = JSON.parse(probe.stdout.trim().split('\n').pop() ?? '[]') as string[];
    const ip = (await docker.inspectContainer(containerId)).ipAddress;
    if (!ip) throw new Error(`The test ${kind.title} has no address on ${network}.`);
    return { network, url, packages, ip, stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}
