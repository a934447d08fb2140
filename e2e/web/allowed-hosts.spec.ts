/**
 * Issue 21, "What is said must be true" #4: a host allowed with one click (Network activity → Allow) showed
 * nowhere on the environment's card or form and could not be taken back; the row still offered Allow; the card
 * still said only the package sites are reached. (The proxy refuses before connecting: nothing leaves this machine.)
 */
import { PanelPage } from '../pages/panel-page';
import { callApi, uniqueName } from '../support/panel-api';
import { startOwnSandpit } from '../support/own-sandpit';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

const BLOCKED = 'files.blocked-by-sandpit.example';

test('an allowed host is listed on the card and in the form, the row stops offering Allow, and it can be taken back', async ({ page, server }, testInfo) => {
  const own = await startOwnSandpit(testInfo, server.pythonImage, { env: { SANDPIT_EGRESS_PROXY: 'on' } });
  try {
    const name = uniqueName('Downloads only');
    const env = (await callApi(own.info, 'environments.create', { name, language: 'python', network: 'packages' })) as { id: string };
    const session = (await callApi(own.info, 'sessions.create', { environment: env.id })) as { id: string };
    await callApi(own.info, 'sessions.execute', {
      sessionId: session.id,
      code: `import urllib.request\ntry:\n    urllib.request.urlopen("https://${BLOCKED}/data.csv", timeout=20)\nexcept Exception as error:\n    print("refused:", error)`,
    });

    const panel = new PanelPage(page);
    await panel.openWithToken(own.info.url, own.info.panelToken);
    const environments = await panel.environments();
    await expect(environments.row(name).getByTestId('env-reach')).toHaveText('Its sessions reach only the package sites set in Settings; everything else is blocked.');

    const sessions = await panel.sessions();
    await sessions.open(session.id);
    await page.getByTestId('session-tab-network').click();
    const entry = page.getByTestId('network-entry').filter({ hasText: BLOCKED });
    await entry.getByTestId('network-allow').click();
    await expect(page.getByTestId('network-note')).toContainText(`${BLOCKED} is now allowed for "${name}"`);
    await expect(entry.getByTestId('network-allow')).toHaveCount(0);
    await expect(entry.getByTestId('network-allowed-since')).toHaveText(`— allowed for “${name}” since`);

    // The card says what its sessions reach now, the host included; the form lists it too.
    const again = await panel.environments();
    const row = again.row(name);
    await expect(row.getByTestId('env-reach')).toContainText('Its sessions reach the package sites set in Settings and these hosts; everything else is blocked');
    await expect(row.getByTestId('env-allowed-host')).toHaveText([`${BLOCKED}×`]);
    await row.getByTestId('env-edit').click();
    await expect(again.form.getByTestId('env-allowed-hosts').getByTestId('chip')).toHaveText([`${BLOCKED}×`]);
    await again.form.getByTestId('env-cancel').click();
    await saveScreenshot(page, testInfo, 'allowed-host-on-card');

    // Taken back from the card: gone from the environment, and the row offers Allow again.
    await row.getByRole('button', { name: `Stop allowing ${BLOCKED}` }).click();
    await expect(row.getByTestId('env-allowed-host')).toHaveCount(0);
    await expect(row.getByTestId('env-reach')).toHaveText('Its sessions reach only the package sites set in Settings; everything else is blocked.');
    const updated = (await callApi(own.info, 'environments.get', { environmentId: env.id })) as { allowedHosts: string[] };
    expect(updated.allowedHosts).toEqual([]);
    await (await panel.sessions()).open(session.id);
    await page.getByTestId('session-tab-network').click();
    await expect(page.getByTestId('network-entry').filter({ hasText: BLOCKED }).getByTestId('network-allow')).toBeVisible();
  } finally {
    await own.dispose();
  }
});
