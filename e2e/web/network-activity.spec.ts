/**
 * The egress monitor: a session of an environment with "Package downloads only" tries to reach a host that is
 * not an index; its page (Network) and Activity say so in plain words, and one click allows that host for the
 * environment. (The proxy refuses before connecting anywhere: no traffic leaves this machine.)
 */
import { PanelPage } from '../pages/panel-page';
import { callApi, uniqueName } from '../support/panel-api';
import { startOwnSandpit } from '../support/own-sandpit';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

const BLOCKED = 'files.blocked-by-sandpit.example';
/** A name no sandbox may ever reach: the proxy refuses it by its list (it never resolves it), and Allow is refused. */
const METADATA = 'metadata.google.internal';

test('a blocked host shows on the session page and in Activity, and can be allowed for the environment', async ({ page, server }, testInfo) => {
  const own = await startOwnSandpit(testInfo, server.pythonImage, { env: { SANDPIT_EGRESS_PROXY: 'on' } });
  try {
    const env = (await callApi(own.info, 'environments.create', { name: uniqueName('Indexes only'), language: 'python', network: 'packages' })) as { id: string };
    const session = (await callApi(own.info, 'sessions.create', { environment: env.id })) as { id: string; name: string };
    const tried = (await callApi(own.info, 'sessions.execute', {
      sessionId: session.id,
      code: [
        'import urllib.request',
        `for url in ["https://${BLOCKED}/data.csv", "http://${METADATA}/computeMetadata/v1/"]:`,
        '    try:',
        '        urllib.request.urlopen(url, timeout=20)',
        '        print("reached")',
        '    except Exception as error:',
        '        print("refused:", error)',
      ].join('\n'),
    })) as { stdout: string };
    expect(tried.stdout.match(/^refused:/gm)).toHaveLength(2);

    const panel = new PanelPage(page);
    await panel.openWithToken(own.info.url, own.info.panelToken);
    const sessions = await panel.sessions();
    await sessions.open(session.id);
    await page.getByTestId('session-tab-network').click();
    const entry = page.getByTestId('network-entry').filter({ hasText: BLOCKED });
    await expect(entry).toContainText(`tried to reach ${BLOCKED} — blocked: not a package index`);
    await expect(entry).toHaveAttribute('data-allowed', 'no');
    await saveScreenshot(page, testInfo, 'network-blocked');
    await entry.getByTestId('network-allow').click();
    await expect(page.getByTestId('network-note')).toContainText(`${BLOCKED} is now allowed`);
    const updated = (await callApi(own.info, 'environments.get', { environmentId: env.id })) as { allowedHosts: string[] };
    expect(updated.allowedHosts).toContain(BLOCKED);

    // The metadata service's name is refused when the person clicks Allow, saying why; the list stays as it was.
    const metadata = page.getByTestId('network-entry').filter({ hasText: METADATA });
    await expect(metadata).toHaveAttribute('data-allowed', 'no');
    await metadata.getByTestId('network-allow').click();
    await expect(page.getByTestId('network-note')).toContainText(`Could not allow ${METADATA}`);
    await expect(page.getByTestId('network-note')).toContainText('is a cloud metadata service');
    await expect(page.getByTestId('network-note')).toContainText('so it cannot be an allowed host');
    const after = (await callApi(own.info, 'environments.get', { environmentId: env.id })) as { allowedHosts: string[] };
    expect(after.allowedHosts).toEqual(updated.allowedHosts);

    // Activity lists it too, with the session by its name (its id is in the tooltip).
    await page.goto(`${own.info.url}/#/activity`);
    await page.getByTestId('activity-network').locator('summary').click();
    await expect(page.getByTestId('activity-network').getByTestId('network-entry').filter({ hasText: BLOCKED })).toContainText(`· ${session.name}`);
  } finally {
    await own.dispose();
  }
});
