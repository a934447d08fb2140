import { describe, expect, it } from 'vitest';
import { pollUntil } from '../util/with-timeout';
import type { EgressPassageOutcome } from './egress-proxy';
import { outcomeWords } from './egress-outcome';
import { proxied, sendConnect, startProxy, useEgressProxyHarness, WAIT_MS } from '../../test-support/egress-proxy-harness';

useEgressProxyHarness();

/** The outcome the proxy reports for the first passage to `target`. */
async function outcomeOf(outcomes: EgressPassageOutcome[], target: string): Promise<EgressPassageOutcome> {
  return pollUntil(() => outcomes.find((o) => `${o.host}:${o.port}` === target), WAIT_MS, `the outcome for ${target}`);
}

describe('egress proxy: what a connection let through came to', () => {
  it('a tunnel that reached its host is "connected"; one whose host refused is not, with the reason', async () => {
    const outcomes: EgressPassageOutcome[] = [];
    const { proxy } = await startProxy({ onOutcome: (o) => outcomes.push(o) });
    const open = await sendConnect(proxy.port, 'pypi-mirror.test:443');
    expect(open.status).toBe(200);
    expect(await outcomeOf(outcomes, 'pypi-mirror.test:443')).toMatchObject({ client: 'ses-test', connected: true });
    open.socket.destroy();

    const refused = await sendConnect(proxy.port, 'pypi-mirror.test:8080');
    expect(refused.status).toBe(502);
    const failed = await outcomeOf(outcomes, 'pypi-mirror.test:8080');
    expect(failed).toMatchObject({ connected: false, code: 'ECONNREFUSED' });
    expect(outcomeWords(failed)).toBe('it refused the connection');
    refused.socket.destroy();
  });

  it('a plain-HTTP request reports what the host answered', async () => {
    const outcomes: EgressPassageOutcome[] = [];
    const { proxy } = await startProxy({ onOutcome: (o) => outcomes.push(o) });
    const res = await proxied({ port: proxy.port, path: 'http://pypi-mirror.test/simple/' });
    expect(res.status).toBe(200);
    const answered = await outcomeOf(outcomes, 'pypi-mirror.test:80');
    expect(answered).toMatchObject({ connected: true, status: 200 });
    expect(outcomeWords(answered)).toBe('answered 200 OK');
  });

  it('says "offline" words for a name that could not be looked up', () => {
    expect(outcomeWords({ connected: false, code: 'ENOTFOUND' })).toBe('its address could not be found (is this computer offline?)');
    expect(outcomeWords({ connected: true, status: 502, statusText: 'Bad Gateway' })).toBe('answered 502 Bad Gateway');
    expect(outcomeWords({ connected: false })).toBe('the connection failed');
  });
});
