import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CallContext } from '../api/api-types';
import { call } from '../api/dispatcher';
import { pollUntil } from '../util/with-timeout';
import { testDocker } from '../../test-support/docker';
import { UPSTREAM_BODY, startHttpUpstream } from '../../test-support/http-upstream';
import type { HttpUpstream } from '../../test-support/http-upstream';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';

// Network rule of this file: the only host reached is the test's upstream container, on an internal Docker
// network this file creates, through the egress proxy's production connector (its address is a private one,
// which the proxy may reach; loopback and link-local it never does).

const PANEL: CallContext = { transport: 'internal' };

describe('egress: Network activity says "reached" only for a connection that reached its host', () => {
  let sp: TestSandpit | undefined;
  let upstream: HttpUpstream | undefined;

  beforeAll(async () => {
    const image = inject('images').python;
    if (!image) throw new Error('The python executor image was not built by the docker globalSetup.');
    upstream = await startHttpUpstream(testDocker(), image);
    sp = await startTestSandpit({ egressProxy: true, installNetwork: 'none' });
    await pollUntil(() => (sp!.environments.egress() ? true : undefined), 30_000, 'egress gateway up', 100);
  }, 120_000);
  afterAll(async () => {
    await sp?.cleanup();
    await upstream?.stop();
  });

  it('tells a 200, a 502 and a refused connection apart, on the entry of the session by its name', async () => {
    const ip = upstream!.ip;
    const env = await call(sp!.api, 'environments.create', { name: 'Reaches the upstream', language: 'python', network: 'packages', allowedHosts: [ip] }, PANEL);
    const s = await call(sp!.api, 'sessions.create', { environment: env.id, name: 'Outcome probe' }, PANEL);
    const run = await sp!.sessions.session(s.id).execute(
      [
        'import urllib.request, urllib.error',
        `for url in ('http://${ip}/hello', 'http://${ip}/broken', 'https://${ip}/'):`,
        '    try:',
        "        print(url, 'got', urllib.request.urlopen(url, timeout=20).read().decode())",
        '    except urllib.error.HTTPError as error:',
        "        print(url, 'status', error.code)",
        '    except Exception as error:',
        "        print(url, 'failed', error)",
      ].join('\n'),
    );
    // What the code saw: the page, the upstream's own 502, and a tunnel the proxy could not open.
    expect(run.stdout).toContain(`http://${ip}/hello got ${UPSTREAM_BODY}`);
    expect(run.stdout).toContain(`http://${ip}/broken status 502`);
    expect(run.stdout).toMatch(new RegExp(`https://${ip.replaceAll('.', '\\.')}/ failed .*Tunnel connection failed: 502`));

    const entries = await pollUntil(
      async () => {
        const { entries: list } = await call(sp!.api, 'egress.recent', { sessionId: s.id, limit: 10 }, PANEL);
        return list.length === 3 && list.every((e) => e.connected !== undefined) ? list : undefined;
      },
      15_000,
      'three outcomes in the egress log',
      100,
    );
    // Oldest first, as the code made them.
    expect(entries.reverse().map((e) => ({ port: e.port, allowed: e.allowed, connected: e.connected, answer: e.answer, sessionName: e.sessionName }))).toEqual([
      { port: 80, allowed: true, connected: true, answer: 'answered 200 OK', sessionName: 'Outcome probe' },
      { port: 80, allowed: true, connected: true, answer: 'answered 502 Bad Gateway', sessionName: 'Outcome probe' },
      { port: 443, allowed: true, connected: false, answer: 'it refused the connection', sessionName: 'Outcome probe' },
    ]);
    for (const entry of entries) expect(entry.host).toBe(ip);

    // Ended, it keeps its name in the list of every session.
    await call(sp!.api, 'sessions.stop', { sessionId: s.id }, PANEL);
    const { entries: all } = await call(sp!.api, 'egress.recent', { limit: 10 }, PANEL);
    expect(all.filter((e) => e.sessionId === s.id).map((e) => e.sessionName)).toEqual(['Outcome probe', 'Outcome probe', 'Outcome probe']);
  }, 120_000);
});
