/**
 * Issue 21, "What is said must be true" #3: Network activity said "reached" for connections that failed and
 * after a 502. A host on a Docker network this spec creates (a plain-HTTP server on port 80; nothing listens on
 * 443) is allowed for an environment; its session fetches a page (200), a broken page (the host's own 502) and
 * an HTTPS address where nothing listens. The Network tab tells the three apart in words, and Activity names
 * the session by its name, also once it has ended. No traffic leaves this machine.
 */
import { DockerodeClient } from '../../src/core/docker/dockerode-client';
import { silentLogger } from '../../src/core/log';
import { startHttpUpstream } from '../../src/test-support/http-upstream';
import { PanelPage } from '../pages/panel-page';
import { callApi, uniqueName } from '../support/panel-api';
import { startOwnSandpit } from '../support/own-sandpit';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

test('a connection that reached its host, one the host answered 502, and one that failed read differently', async ({ page, server }, testInfo) => {
  const upstream = await startHttpUpstream(new DockerodeClient({ logger: silentLogger }), server.pythonImage);
  const own = await startOwnSandpit(testInfo, server.pythonImage, { env: { SANDPIT_EGRESS_PROXY: 'on' } });
  try {
    const ip = upstream.ip;
    const env = (await callApi(own.info, 'environments.create', { name: uniqueName('Upstream'), language: 'python', network: 'packages', allowedHosts: [ip] })) as { id: string };
    const sessionName = uniqueName('Fetcher');
    const session = (await callApi(own.info, 'sessions.create', { environment: env.id, name: sessionName })) as { id: string };
    const tried = (await callApi(own.info, 'sessions.execute', {
      sessionId: session.id,
      code: [
        'import time, urllib.request, urllib.error',
        `for url in ('http://${ip}/hello', 'http://${ip}/broken', 'https://${ip}/'):`,
        '    try:',
        "        print('got', urllib.request.urlopen(url, timeout=20).status)",
        '    except urllib.error.HTTPError as error:',
        "        print('status', error.code)",
        '    except Exception as error:',
        "        print('failed', type(error).__name__)",
        '    time.sleep(0.3)',
      ].join('\n'),
    })) as { stdout: string };
    expect(tried.stdout).toBe('got 200\nstatus 502\nfailed URLError\n');

    const panel = new PanelPage(page);
    await panel.openWithToken(own.info.url, own.info.panelToken);
    await (await panel.sessions()).open(session.id);
    await page.getByTestId('session-tab-network').click();
    const passages = page.getByTestId('network-passage');
    // Newest first.
    await expect(passages).toHaveText([
      `let through to ${ip}, but the connection failed: it refused the connection`,
      `reached ${ip} — it answered 502 Bad Gateway`,
      `reached ${ip} — it answered 200 OK`,
    ]);
    await expect(passages.nth(0)).toHaveAttribute('data-outcome', 'failed');
    await expect(passages.nth(1)).toHaveAttribute('data-outcome', 'reached');
    await saveScreenshot(page, testInfo, 'network-outcomes');

    // Activity lists them with the session by its name — also once the session has ended.
    await callApi(own.info, 'sessions.stop', { sessionId: session.id });
    await page.goto(`${own.info.url}/#/activity`);
    await page.getByTestId('activity-network').locator('summary').click();
    const rows = page.getByTestId('activity-network').getByTestId('network-entry').filter({ hasText: ip });
    await expect(rows).toHaveCount(3);
    for (let i = 0; i < 3; i += 1) await expect(rows.nth(i).getByTestId('network-session')).toHaveText(`· ${sessionName}`);
  } finally {
    await own.dispose();
    await upstream.stop();
  }
});
