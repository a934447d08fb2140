import { Socket, connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../shared/domain/limits';
import { hardenedContainerSpec } from '../docker/container-profile';
import type { ContainerSpec, DockerClient, ExecResult } from '../docker/docker-client';
import { LABEL, instanceLabels } from '../docker/labels';
import { dockerNetworks } from '../docker/docker-networks';
import { silentLogger } from '../log';
import { newId } from '../util/ids';
import { pollUntil, withTimeout } from '../util/with-timeout';
import { INDEX_PORT, startPackageIndex } from '../../test-support/package-index';
import { TEST_LABEL } from '../../test-support/test-server-container';
import type { PackageIndex } from '../../test-support/package-index';
import { recordingDocker } from '../../test-support/recording-docker';
import type { RecordingDocker } from '../../test-support/recording-docker';
import { testDocker } from '../../test-support/docker';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import type { EgressConnector } from './egress-connector';
import { egressNetworkName, startEgressGateway } from './egress-gateway';
import type { EgressGateway, EgressRefusedEvent } from './egress-gateway';
import { pipInstaller } from '../installers/pip';
import { parsePackageSpecs } from '../installers/package-specs';
import { newSession } from '../../test-support/sessions';

// Network rule of this file: traffic goes only to loopback and to the two Docker networks created
// here (the index's test network and the gateway's egress network). Refused names are refused by
// the proxy from the request line, before any lookup; `.invalid` never resolves anyway.

const REFUSED_PROBE = [
  'import json, urllib.request, urllib.error',
  'out = {}',
  "for url in ('http://not-allowed.invalid/', 'https://not-allowed.invalid/'):",
  '    try:',
  '        urllib.request.urlopen(url, timeout=10)',
  "        out[url] = 'reached'",
  '    except urllib.error.HTTPError as error:',
  "        out[url] = [error.code, error.headers.get('X-Sandpit-Refused')]",
  '    except Exception as error:',
  '        out[url] = repr(error)',
  'print(json.dumps(out))',
].join('\n');

// Interfaces and routes as the container sees them, plus two connection attempts: the proxy port on
// the gateway, and the index container on the test's other (internal) network.
const ROUTE_PROBE = [
  'import json, os, socket, sys',
  'gateway, port, other = sys.argv[1], int(sys.argv[2]), sys.argv[3]',
  'def attempt(host, p):',
  '    try:',
  '        socket.create_connection((host, p), timeout=3).close()',
  "        return 'connected'",
  '    except Exception as error:',
  '        return type(error).__name__',
  'def ip(word):',
  "    return socket.inet_ntoa(bytes.fromhex(word)[::-1])",
  'routes = []',
  "for line in open('/proc/net/route').read().splitlines()[1:]:",
  '    f = line.split()',
  "    routes.append({'iface': f[0], 'destination': ip(f[1]), 'gateway': ip(f[2]), 'mask': ip(f[7])})",
  "print(json.dumps({'interfaces': sorted(os.listdir('/sys/class/net')), 'routes': routes,",
  "                  'proxy': attempt(gateway, port), 'other': attempt(other, " + String(INDEX_PORT) + ')}))',
].join('\n');

interface RouteReport {
  interfaces: string[];
  routes: Array<{ iface: string; destination: string; gateway: string; mask: string }>;
  proxy: string;
  other: string;
}

function ipToInt(ip: string): number {
  return ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

function inSubnet(ip: string, cidr: string): boolean {
  const [base, bits] = cidr.split('/');
  const size = 2 ** (32 - Number(bits));
  return Math.floor(ipToInt(ip) / size) === Math.floor(ipToInt(base!) / size);
}

/** A short-lived probe on the egress network, hardened like every Sandpit container. */
function probeSpec(image: string, network: string, env: Record<string, string>, cmd: string[]): ContainerSpec {
  const spec = hardenedContainerSpec({
    name: `sandpit-test-egress-probe-${newId('p', 4).slice(2)}`,
    image,
    limits: { ...DEFAULT_LIMITS, memoryMb: 256, pids: 64, tmpMb: 16 },
    labels: { [TEST_LABEL]: 'true' },
    network,
    cmd,
    env: { ...env, PYTHONDONTWRITEBYTECODE: '1' },
  });
  spec.openStdin = false;
  spec.workingDir = '/tmp';
  return spec;
}

async function runProbe(docker: DockerClient, spec: ContainerSpec): Promise<unknown> {
  const r: ExecResult = await docker.runToCompletion(spec, { timeoutMs: 60_000, maxOutputBytes: 64 * 1024 });
  expect(r.timedOut).toBe(false);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').pop() ?? 'null') as unknown;
}

/** Resolves with the error code of a TCP connection attempt, or 'connected'. */
function tryConnect(host: string, port: number): Promise<string> {
  return withTimeout(
    new Promise<string>((resolve) => {
      const socket = connect({ host, port });
      socket.once('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    }),
    5_000,
    `connecting to ${host}:${port}`,
  );
}

describe('the egress gateway: an internal network whose only way out is Sandpit\'s proxy', () => {
  const docker = testDocker();
  const refusals: EgressRefusedEvent[] = [];
  let image: string;
  let index: PackageIndex | undefined;
  let gateway: EgressGateway | undefined;
  let sp: TestSandpit | undefined;
  let recorder: RecordingDocker;
  let sessionId: string;

  const gw = (): EgressGateway => gateway!;
  const run = async (id: string, code: string): Promise<string | undefined> => {
    const r = await sp!.sessions.session(id).execute(code);
    expect(r.error, r.error?.traceback).toBeUndefined();
    expect(r.status).toBe('ok');
    return r.result;
  };

  beforeAll(async () => {
    const python = inject('images').python;
    if (!python) throw new Error('The python executor image was not built by the docker globalSetup.');
    image = python;
    index = await startPackageIndex(docker, { image });
    const indexIp = index.ip;
    // The proxy resolves names on the host; the test maps the one allowed name to the index container.
    const connector: EgressConnector = (host, port) => {
      if (host === 'pypi-index' && port === INDEX_PORT) return connect({ host: indexIp, port: INDEX_PORT });
      const socket = new Socket();
      process.nextTick(() => socket.destroy(new Error(`the test connector has no route to ${host}:${port}`)));
      return socket;
    };
    recorder = recordingDocker(testDocker());
    sp = await startTestSandpit({ pipIndexUrl: index.url, installNetwork: index.network }, { docker: recorder.docker });
    gateway = await startEgressGateway({
      networks: dockerNetworks(docker, sp.identity),
      identity: sp.identity,
      allowedUrls: [index.url],
      extraHosts: [],
      onRefused: (event) => refusals.push(event),
      log: silentLogger,
      connect: connector,
    });
    sessionId = (await newSession(sp, {})).id;
  });
  afterAll(async () => {
    await gateway?.close().catch(() => undefined);
    await sp?.cleanup();
    await index?.stop();
  });

  it('creates an internal network labelled with the instance, and binds the proxy to its gateway address only', async () => {
    const info = await docker.inspectNetwork(gw().networkId);
    expect(info).toBeDefined();
    expect(info!.name).toBe(egressNetworkName(sp!.identity));
    expect(gw().network).toMatch(/^sandpit-egress-[0-9a-f]{12}$/);
    expect(info!.internal).toBe(true);
    expect(info!.labels).toMatchObject({ ...instanceLabels(sp!.identity), [LABEL.role]: 'egress' });
    expect(inSubnet(gw().gatewayIp, gw().subnet)).toBe(true);
    expect(info!.subnets).toContainEqual({ subnet: gw().subnet, gateway: gw().gatewayIp });
    // Not 0.0.0.0: nothing answers on loopback at the proxy's port.
    expect(await tryConnect('127.0.0.1', gw().port)).toBe('ECONNREFUSED');
    expect(await tryConnect(gw().gatewayIp, gw().port)).toBe('connected');
    const url = gw().proxyUrl(sessionId);
    expect(url).toMatch(new RegExp(`^http://${sessionId}:[A-Za-z0-9_-]{43}@${gw().gatewayIp.replaceAll('.', '\\.')}:${gw().port}$`));
    expect(gw().env(sessionId)).toMatchObject({ HTTP_PROXY: url, HTTPS_PROXY: url, http_proxy: url, https_proxy: url, NO_PROXY: '', PIP_PROXY: url });
  });

  it('installs through the proxy into a session that has no network, which imports the package at once', async () => {
    const before = gw().stats().forwarded;
    // The installer itself, with this gateway's proxy (the core's own proxy is off in this test).
    const outcomes = await pipInstaller.install(
      sp!.sessions.session(sessionId).runtime.sandbox,
      parsePackageSpecs(['sandpit_demo_b'], 'pip'),
      // installNetwork is the index's own network: with a proxy the installer must not join it.
      { pipIndexUrl: index!.url, npmRegistryUrl: 'http://pypi-index:8080/npm', cranRepositoryUrl: 'http://pypi-index:8080/cran/', installNetwork: index!.network, installTimeoutMs: 120_000, proxy: gw().installerProxy(sessionId) },
      silentLogger,
    );
    expect(outcomes).toEqual([{ package: 'sandpit_demo_b', ok: true }]);
    expect(await run(sessionId, 'import sandpit_demo_b, sandpit_demo_a\n(sandpit_demo_b.answer(), sandpit_demo_a.VALUE)')).toBe('(84, 42)');

    // Index page, wheel and dependency: all of it went through the proxy.
    expect(gw().stats().forwarded - before).toBeGreaterThanOrEqual(4);
    expect(refusals).toEqual([]);
    const installers = recorder.withRole('installer');
    expect(installers).toHaveLength(1);
    const spec = installers[0]!;
    expect(spec.hostConfig).toMatchObject({ NetworkMode: gw().network, CapDrop: ['ALL'], ReadonlyRootfs: true });
    expect(spec.cmd).toEqual(expect.arrayContaining(['--proxy', gw().proxyUrl(sessionId), '--index-url', index!.url]));
    expect(spec.cmd!.indexOf('--proxy')).toBeLessThan(spec.cmd!.indexOf('--'));
    expect(spec.env).toMatchObject({ HTTP_PROXY: gw().proxyUrl(sessionId), NO_PROXY: '' });
  });

  it('refuses a host that is not on the allow-list with a 403 and reports it with the session id', async () => {
    const started = Date.now();
    const out = await runProbe(docker, probeSpec(image, gw().network, gw().env(sessionId), ['python3', '-c', REFUSED_PROBE]));
    expect(out).toMatchObject({ 'http://not-allowed.invalid/': [403, 'host-not-allowed'] });
    // CONNECT refused: urllib reports the failed tunnel.
    expect((out as Record<string, string>)['https://not-allowed.invalid/']).toMatch(/Tunnel connection failed: 403/);

    await pollUntil(() => (refusals.length >= 2 ? true : undefined), 10_000, 'two refusal events');
    expect(refusals).toHaveLength(2);
    expect(refusals.map((r) => r.port).sort()).toEqual([443, 80]);
    for (const refusal of refusals) {
      expect(refusal).toMatchObject({ host: 'not-allowed.invalid', reason: 'host-not-allowed', sessionId });
      const time = Date.parse(refusal.time);
      expect(time).toBeGreaterThanOrEqual(started - 1_000);
      expect(time).toBeLessThanOrEqual(Date.now());
    }
  });

  it('leaves a container on the egress network no way out but the gateway', async () => {
    // The host (where the proxy runs) reaches the index on the test's other network...
    expect(await tryConnect(index!.ip, INDEX_PORT)).toBe('connected');
    const report = (await runProbe(
      docker,
      probeSpec(image, gw().network, {}, ['python3', '-c', ROUTE_PROBE, gw().gatewayIp, String(gw().port), index!.ip]),
    )) as RouteReport;
    expect(report.interfaces).toEqual(['eth0', 'lo']);
    expect(report.routes.length).toBeGreaterThan(0);
    for (const route of report.routes) {
      expect(route.iface).toBe('eth0');
      if (route.destination === '0.0.0.0') {
        // Docker 20.10 still gives containers on an internal network a default route via the gateway
        // (newer engines may not). It leads to the host only: forwarding out of an internal bridge is dropped.
        expect(route).toMatchObject({ mask: '0.0.0.0', gateway: gw().gatewayIp });
      } else {
        expect(route.gateway).toBe('0.0.0.0');
        expect(`${route.destination}/${route.mask}`).toBe(`${gw().subnet.split('/')[0]}/${maskOf(gw().subnet)}`);
      }
    }
    // ...the container reaches the proxy, but not the index directly.
    expect(report.proxy).toBe('connected');
    expect(report.other).not.toBe('connected');
  });

  it('keeps a session with network policy none on loopback only', async () => {
    const containerId = sp!.sessions.session(sessionId).info().containerId;
    expect(await run(sessionId, "import os\nsorted(os.listdir('/sys/class/net'))")).toBe("['lo']");
    const session = recorder.created.find((s) => s.name === `sandpit-${sessionId}`);
    expect(session?.hostConfig.NetworkMode).toBe('none');
    expect((await docker.inspectContainer(containerId)).ipAddress).toBeUndefined();
  });

  it('close stops the proxy and removes the network', async () => {
    // Once the network is gone its gateway address is no longer ours: nothing here connects to it again.
    const { networkId } = gw();
    await gw().close();
    await gw().close();
    expect(await docker.inspectNetwork(networkId)).toBeUndefined();
    expect(await docker.listNetworks({ [LABEL.instance]: sp!.identity.instanceId })).toEqual([]);
  });
});

function maskOf(cidr: string): string {
  const bits = Number(cidr.split('/')[1]);
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return [24, 16, 8, 0].map((shift) => (mask >>> shift) & 255).join('.');
}
