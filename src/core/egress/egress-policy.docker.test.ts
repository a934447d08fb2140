import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { EventPayload } from '../../shared/api/contract';
import { call } from '../api/dispatcher';
import type { CallContext } from '../api/api-types';
import { pollUntil } from '../util/with-timeout';
import { testDocker } from '../../test-support/docker';
import { startPackageIndex } from '../../test-support/package-index';
import type { PackageIndex } from '../../test-support/package-index';
import { recordingDocker } from '../../test-support/recording-docker';
import type { RecordingDocker } from '../../test-support/recording-docker';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';

const PANEL: CallContext = { transport: 'internal' };

/**
 * The whole core with its egress proxy: installs and "packages" sessions reach the index only through
 * it; other hosts are refused (before any lookup) and logged; "none" sessions have no network at all.
 * The index sits on a network this test creates; the proxy reaches it by its container address.
 */
describe('network policies through the egress proxy', () => {
  let index: PackageIndex | undefined;
  let sp: TestSandpit | undefined;
  let recorder: RecordingDocker;
  const refused: Array<EventPayload<'egress.refused'>> = [];
  const api = (): TestSandpit => sp!;

  beforeAll(async () => {
    const image = inject('images').python;
    if (!image) throw new Error('The python executor image was not built by the docker globalSetup.');
    index = await startPackageIndex(testDocker(), { image });
    const indexIp = index.ip;
    recorder = recordingDocker(testDocker());
    sp = await startTestSandpit(
      { egressProxy: true, pipIndexUrl: index.url, installNetwork: 'none' },
      {
        docker: recorder.docker,
        // Only the allowed index name is ever connected to, and only at its address on the test's network.
        egressConnect: (host: string, port: number): Socket => {
          if (host !== 'pypi-index') throw new Error(`unexpected upstream ${host}`);
          return connect({ host: indexIp, port });
        },
      },
    );
    api().bus.on('egress.refused', (e) => refused.push(e));
    await pollUntil(() => (api().environments.egress() ? true : undefined), 30_000, 'egress gateway up');
  });
  afterAll(async () => {
    await sp?.cleanup();
    await index?.stop();
  });

  it('installs through the proxy: the installer joins only the egress network, the session stays offline', async () => {
    const s = await call(api().api, 'sessions.create', {}, PANEL);
    const { results } = await call(api().api, 'packages.install', { sessionId: s.id, packages: ['sandpit_demo_a'] }, PANEL);
    expect(results).toEqual([{ package: 'sandpit_demo_a', ok: true, version: '1.0.0' }]);
    const installer = recorder.withRole('installer').at(-1)!;
    expect(installer.hostConfig.NetworkMode).toBe(api().environments.egress()!.network);
    expect(installer.env.HTTPS_PROXY).toMatch(new RegExp(`^http://${s.id}:[A-Za-z0-9_-]{43}@`));
    const r = await api().sessions.session(s.id).execute("import os, sandpit_demo_a\n(sandpit_demo_a.VALUE, sorted(os.listdir('/sys/class/net')))");
    expect(r.result).toBe("(42, ['lo'])");
  });

  it('a "packages" session reaches the index through the proxy; any other host is refused and logged', async () => {
    const env = await call(api().api, 'environments.create', { name: 'Packages only', language: 'python', network: 'packages' }, PANEL);
    const s = await call(api().api, 'sessions.create', { environment: env.id }, PANEL);
    const fetch = (url: string): string =>
      [
        'import urllib.request, urllib.error',
        'try:',
        `    r = urllib.request.urlopen(${JSON.stringify(url)}, timeout=10)`,
        "    out = ('ok', r.status)",
        'except urllib.error.HTTPError as e:',
        "    out = ('http-error', e.code)",
        'out',
      ].join('\n');
    const allowed = await api().sessions.session(s.id).execute(fetch('http://pypi-index:8080/simple/'));
    expect(allowed.result).toBe("('ok', 200)");
    const before = refused.length;
    const denied = await api().sessions.session(s.id).execute(fetch('http://not-allowed.invalid/'));
    expect(denied.result).toBe("('http-error', 403)");
    await pollUntil(() => (refused.length > before ? true : undefined), 5_000, 'refusal event');
    const event = refused.at(-1)!;
    expect(event.host).toBe('not-allowed.invalid');
    expect(event.reason).toBe('host-not-allowed');
    expect(event.sessionId).toBe(s.id);
    expect(Date.parse(event.time)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('a "none" session cannot reach even the index: no interface but loopback, no route', async () => {
    const s = await call(api().api, 'sessions.create', {}, PANEL);
    const r = await api().sessions.session(s.id).execute("import os\n(sorted(os.listdir('/sys/class/net')), open('/proc/net/route').read().strip().splitlines()[1:])");
    expect(r.result).toBe("(['lo'], [])");
  });
});
