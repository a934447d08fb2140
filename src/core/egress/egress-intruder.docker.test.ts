import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { EventPayload } from '../../shared/api/contract';
import { call } from '../api/dispatcher';
import type { CallContext } from '../api/api-types';
import type { DockerClient } from '../docker/docker-client';
import type { LogFields, Logger } from '../log';
import { newId } from '../util/ids';
import { pollUntil } from '../util/with-timeout';
import { testDocker } from '../../test-support/docker';
import { INDEX_ALIAS, INDEX_PORT, startPackageIndex } from '../../test-support/package-index';
import type { PackageIndex } from '../../test-support/package-index';
import { recordingDocker } from '../../test-support/recording-docker';
import type { RecordingDocker } from '../../test-support/recording-docker';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { TEST_LABEL, helperSpec } from '../../test-support/test-server-container';

const PANEL: CallContext = { transport: 'internal' };

// Network rule of this file: traffic goes only to loopback, to the index's test network, to the
// egress network the core under test creates, and to one more internal network this file creates
// (the "outside" one). The proxy's gateway address is the host's address on the egress network.

/**
 * The attacker's tool: raw connections to the proxy, one per attempt, each sending one request line
 * (with a Proxy-Authorization built from `auth`, or none) and reading what comes back until the proxy
 * closes it (or, for a CONNECT, until the end of the answer's head).
 */
const PROBE = [
  'import base64, json, socket, sys',
  'host, port, attempts = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])',
  'out = []',
  'for a in attempts:',
  '    r = {}',
  '    try:',
  '        s = socket.create_connection((host, port), timeout=5)',
  '    except Exception as error:',
  "        out.append({'connected': False, 'error': type(error).__name__})",
  '        continue',
  "    r['connected'] = True",
  "    r['source'] = s.getsockname()[0]",
  `    head = a['line'] + '\\r\\nHost: ${INDEX_ALIAS}:${INDEX_PORT}\\r\\n'`,
  "    if a.get('auth') is not None:",
  "        head += 'Proxy-Authorization: Basic ' + base64.b64encode(a['auth'].encode()).decode() + '\\r\\n'",
  "    head += 'Connection: close\\r\\n\\r\\n'",
  "    data = b''",
  '    try:',
  '        s.sendall(head.encode())',
  '        while True:',
  '            chunk = s.recv(65536)',
  '            if not chunk:',
  '                break',
  '            data += chunk',
  "            if a['line'].startswith('CONNECT') and b'\\r\\n\\r\\n' in data:",
  '                break',
  '    except Exception as error:',
  "        r['error'] = type(error).__name__",
  '    s.close()',
  "    r['bytes'] = len(data)",
  "    r['status'] = int(data.split(b' ')[1]) if data.startswith(b'HTTP/') else None",
  "    r['challenge'] = b'proxy-authenticate: basic' in data.lower()",
  "    r['index'] = b'sandpit-demo-a' in data or b'sandpit_demo_a' in data",
  '    out.append(r)',
  'print(json.dumps(out))',
].join('\n');

interface Attempt {
  line: string;
  auth?: string;
}

interface Outcome {
  connected: boolean;
  source?: string;
  error?: string;
  bytes?: number;
  status?: number | null;
  challenge?: boolean;
  index?: boolean;
}

const GET = `GET http://${INDEX_ALIAS}:${INDEX_PORT}/simple/ HTTP/1.1`;
const CONNECT = `CONNECT ${INDEX_ALIAS}:${INDEX_PORT} HTTP/1.1`;

/** `user:password` of a proxy URL, as a client puts it in Proxy-Authorization. */
function credentialOf(proxyUrl: string): { user: string; password: string; both: string } {
  const url = new URL(proxyUrl);
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  return { user, password, both: `${user}:${password}` };
}

function recordingLogger(warnings: Array<{ message: string; fields?: LogFields }>): Logger {
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message, fields) => void warnings.push({ message, ...(fields ? { fields } : {}) }),
    error: () => undefined,
    child: () => logger,
  };
  return logger;
}

/**
 * Containers Sandpit did not start, trying its egress proxy: one on a network of its own (outside the
 * egress subnet, yet able to route to the host's gateway address), then the same container attached
 * to Sandpit's egress network by hand (inside the subnet). Sandpit's own "packages" session is the
 * control: its credential gets through, until the session stops.
 */
describe('the egress proxy refuses containers Sandpit did not start', () => {
  const docker: DockerClient = testDocker();
  let index: PackageIndex | undefined;
  let sp: TestSandpit | undefined;
  let recorder: RecordingDocker;
  let outsideNetworkId: string | undefined;
  let intruderId: string | undefined;
  /** Images this file had the core build (each run's tag is new): removed at the end. */
  const builtImages: string[] = [];
  const refused: Array<EventPayload<'egress.refused'>> = [];
  const warnings: Array<{ message: string; fields?: LogFields }> = [];
  /** Where the proxy listens, as the first session's proxy URL says: the gateway address and port. */
  let proxyAt: { host: string; port: string } | undefined;
  const api = (): TestSandpit => sp!;
  const egressNetwork = (): string => {
    const access = api().environments.egress();
    if (!access) throw new Error('the egress gateway is not running');
    return access.network;
  };

  const probe = async (attempts: Attempt[]): Promise<Outcome[]> => {
    const { host, port } = proxyAt!;
    const r = await docker.exec(intruderId!, ['python3', '-c', PROBE, host, port, JSON.stringify(attempts)], {
      timeoutMs: 60_000,
      maxOutputBytes: 64 * 1024,
    });
    expect(r.timedOut).toBe(false);
    expect(r.exitCode, r.stderr).toBe(0);
    return JSON.parse(r.stdout.trim().split('\n').pop() ?? '[]') as Outcome[];
  };

  /** The proxy URL Sandpit gave a session's container (what a thief would copy). */
  const sessionProxyUrl = (sessionId: string): string => {
    const spec = recorder.created.find((s) => s.name === `sandpit-${sessionId}`);
    const url = spec?.env.HTTPS_PROXY;
    if (!url) throw new Error(`no proxy URL recorded for session ${sessionId}`);
    return url;
  };

  beforeAll(async () => {
    const image = inject('images').python;
    if (!image) throw new Error('The python executor image was not built by the docker globalSetup.');
    index = await startPackageIndex(docker, { image });
    const indexIp = index.ip;
    recorder = recordingDocker(testDocker());
    sp = await startTestSandpit(
      { egressProxy: true, pipIndexUrl: index.url, installNetwork: 'none' },
      {
        docker: recorder.docker,
        logger: recordingLogger(warnings),
        egressConnect: (host: string, port: number): Socket => {
          if (host !== INDEX_ALIAS) throw new Error(`unexpected upstream ${host}`);
          return connect({ host: indexIp, port });
        },
      },
    );
    api().bus.on('egress.refused', (e) => refused.push(e));
    await pollUntil(() => (api().environments.egress() ? true : undefined), 30_000, 'egress gateway up');

    // The intruder: a plain long-running container on a network this test made, not Sandpit's.
    const suffix = newId('x', 5).slice(2);
    const outside = `sandpit-test-outside-${suffix}`;
    outsideNetworkId = await docker.createNetwork({ name: outside, labels: { [TEST_LABEL]: 'true' }, internal: true });
    intruderId = await docker.createContainer(
      helperSpec(`sandpit-test-intruder-${suffix}`, image, outside, ['python3', '-c', 'import time; time.sleep(600)']),
    );
    await docker.startContainer(intruderId);
  });

  afterAll(async () => {
    // The intruder first: a container still on the egress network keeps the core from removing it.
    if (intruderId) await docker.removeContainer(intruderId).catch(() => undefined);
    await sp?.cleanup();
    for (const tag of builtImages) await docker.removeImage(tag).catch(() => undefined);
    if (outsideNetworkId) await docker.removeNetwork(outsideNetworkId).catch(() => undefined);
    await index?.stop();
  });

  it('closes, unread, connections from a container on another network, even with a live session credential', async () => {
    const env = await call(api().api, 'environments.create', { name: 'Packages only', language: 'python', network: 'packages' }, PANEL);
    const s = await call(api().api, 'sessions.create', { environment: env.id }, PANEL);
    const stolenUrl = new URL(sessionProxyUrl(s.id));
    proxyAt = { host: stolenUrl.hostname, port: stolenUrl.port };
    const gateway = (await docker.inspectNetwork(egressNetwork()))?.subnets[0]?.gateway;
    expect(proxyAt.host).toBe(gateway);
    const stolen = credentialOf(stolenUrl.href);
    const before = warnings.length;

    const outcomes = await probe([
      { line: GET, auth: stolen.both },
      { line: CONNECT, auth: stolen.both },
      { line: GET },
    ]);
    const intruderIp = (await docker.inspectContainer(intruderId!)).ipAddress;
    for (const outcome of outcomes) {
      // Docker gives containers of an internal network a default route via their gateway, and the
      // host answers on all its addresses: the intruder does reach the proxy's port...
      expect(outcome.connected, JSON.stringify(outcome)).toBe(true);
      expect(outcome.source).toBe(intruderIp);
      // ...and is closed before it gets a single byte.
      expect(outcome.bytes, JSON.stringify(outcome)).toBe(0);
      expect(outcome.status).toBeNull();
    }
    const logged = warnings.slice(before).filter((w) => w.message === 'refused egress connection from outside the egress network');
    expect(logged).toHaveLength(3);
    for (const entry of logged) expect(entry.fields).toMatchObject({ source: intruderIp });

    // The control: the session the credential belongs to reaches the index through the same proxy.
    const own = await api().sessions.session(s.id).execute(
      `import urllib.request\nurllib.request.urlopen('http://${INDEX_ALIAS}:${INDEX_PORT}/simple/', timeout=10).status`,
    );
    expect(own.result).toBe('200');
    await call(api().api, 'sessions.stop', { sessionId: s.id }, PANEL);
  });

  it('answers 407 to a container attached to the egress network by hand, without or with a made-up credential; a stopped session\'s credential is dead', async () => {
    await docker.connectNetwork(egressNetwork(), intruderId!);
    const env = await call(api().api, 'environments.create', { name: 'Packages again', language: 'python', network: 'packages' }, PANEL);
    const victim = await call(api().api, 'sessions.create', { environment: env.id }, PANEL);
    const live = credentialOf(sessionProxyUrl(victim.id));
    const refusedBefore = refused.length;

    const forged: Attempt[] = [
      { line: GET },
      { line: CONNECT },
      { line: GET, auth: `session:${victim.id}` }, // the old, unauthenticated label
      { line: CONNECT, auth: `session:${victim.id}` },
      { line: GET, auth: `${victim.id}:${'A'.repeat(live.password.length)}` }, // the right name, a made-up secret
      { line: CONNECT, auth: `${victim.id}:${'A'.repeat(live.password.length)}` },
      { line: GET, auth: `${victim.id}:` },
    ];
    const outcomes = await probe([...forged, { line: GET, auth: live.both }]);
    const control = outcomes.pop()!;
    for (const [i, outcome] of outcomes.entries()) {
      expect(outcome, JSON.stringify(forged[i])).toMatchObject({ connected: true, status: 407, challenge: true, index: false });
    }
    // From inside the subnet (its address on the egress network), the one live credential works: the
    // 407s above are about the credentials, not about this container's reach.
    expect(control).toMatchObject({ connected: true, status: 200, index: true });

    await pollUntil(() => (refused.length - refusedBefore >= forged.length ? true : undefined), 10_000, 'refusal events');
    const events = refused.slice(refusedBefore);
    expect(events).toHaveLength(forged.length);
    // Refusals never name the session a forged credential claims.
    for (const event of events) {
      expect(event.reason).toBe('proxy-auth-required');
      expect(event).not.toHaveProperty('sessionId');
    }

    // The victim stops: its credential, copied while it lived, no longer opens anything.
    await call(api().api, 'sessions.stop', { sessionId: victim.id }, PANEL);
    const after = await probe([
      { line: GET, auth: live.both },
      { line: CONNECT, auth: live.both },
    ]);
    for (const outcome of after) expect(outcome).toMatchObject({ connected: true, status: 407, challenge: true, index: false });
  });

  it('builds an environment through the proxy with a credential of the build\'s own, dead once the build is over', async () => {
    // A version bound no other run used: the engine's layer cache cannot skip the download.
    const spec = `sandpit_demo_a>=0.0.${Date.now() % 1_000_000}`;
    const env = await call(api().api, 'environments.create', { name: 'Built through the proxy', language: 'python', packages: { pip: [spec] } }, PANEL);
    const refusedBefore = refused.length;
    const lines: string[] = [];
    const off = api().bus.on('environment.buildLog', (e) => {
      if (e.environmentId === env.id) lines.push(e.line);
    });
    const built = await call(api().api, 'environments.build', { environmentId: env.id, force: true }, PANEL);
    off();
    if (built.image?.tag) builtImages.push(built.image.tag);
    expect(built.build?.state, built.build?.error).toBe('ready');
    // pip downloaded it (through the proxy: the build's network has no other way out).
    expect(lines.join('\n')).toMatch(new RegExp(`Downloading http://${INDEX_ALIAS}:${INDEX_PORT}/files/sandpit_demo_a-`));
    const options = recorder.buildOptions.at(-1)!;
    expect(options.networkMode).toBe(egressNetwork());
    const proxyUrl = options.buildArgs?.HTTPS_PROXY;
    expect(proxyUrl).toMatch(/^http:\/\/build-[0-9a-f]{16}:[A-Za-z0-9_-]{43}@/);
    expect(refused.slice(refusedBefore)).toEqual([]);
    const after = await probe([
      { line: GET, auth: credentialOf(proxyUrl!).both },
      { line: CONNECT, auth: credentialOf(proxyUrl!).both },
    ]);
    for (const outcome of after) expect(outcome).toMatchObject({ connected: true, status: 407, index: false });
  });

  it('still installs for Sandpit\'s own sessions, with a credential of the session', async () => {
    const s = await call(api().api, 'sessions.create', {}, PANEL);
    const { results } = await call(api().api, 'packages.install', { sessionId: s.id, packages: ['sandpit_demo_a'] }, PANEL);
    expect(results).toEqual([{ package: 'sandpit_demo_a', ok: true, version: '1.0.0' }]);
    const installer = recorder.withRole('installer').at(-1)!;
    expect(installer.hostConfig.NetworkMode).toBe(egressNetwork());
    const url = new URL(installer.env.HTTPS_PROXY!);
    expect(url.username).toBe(s.id);
    expect(Buffer.from(decodeURIComponent(url.password), 'base64url').length).toBeGreaterThanOrEqual(16);
  });
});
