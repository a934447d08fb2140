/**
 * Issue 21, "What is said must be true" #5: Strong isolation as the Settings default with an environment that
 * has network: saving said "in use now", then starting showed a raw OCI error and policy ids ("packages").
 * Settings warns which environments it concerns; their start is refused in a plain sentence. (Sandpit's own
 * instance: the shared one keeps Standard. The gVisor probe runs `true` only: nothing is sent anywhere.)
 */
import { PanelPage } from '../pages/panel-page';
import { SettingsPage } from '../pages/settings-page';
import { callApi, uniqueName } from '../support/panel-api';
import { startOwnSandpit } from '../support/own-sandpit';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

test('Strong isolation by default: Settings names the environments with network it concerns; their start says why not, in words', async ({ page, server }, testInfo) => {
  const own = await startOwnSandpit(testInfo, server.pythonImage, { env: { SANDPIT_EGRESS_PROXY: 'on' } });
  try {
    const name = uniqueName('Downloads');
    await callApi(own.info, 'environments.create', { name, language: 'python', network: 'packages' });
    const engine = (await callApi(own.info, 'engine.status')) as { runtimes?: string[] };
    test.skip(!engine.runtimes?.includes('runsc-nonet'), `this Docker engine has no gVisor (runtimes: ${engine.runtimes?.join(', ') ?? 'none'})`);

    const panel = new PanelPage(page);
    await panel.openWithToken(own.info.url, own.info.panelToken);
    await panel.settings();
    const settings = new SettingsPage(page);
    await page.getByTestId('settings-isolation-strong').check();
    const warning = page.getByTestId('settings-isolation-network-warning');
    await expect(warning).toContainText(`This environment has network access and follows this setting: ${name} (Package downloads only).`);
    await expect(warning).toContainText('Give it Standard isolation in its form (Environments → Edit → Isolation)');
    await saveScreenshot(page, testInfo, 'strong-isolation-warning');
    await settings.save();

    const environments = await panel.environments();
    await environments.row(name).getByTestId('env-start-session').click();
    const refusal = page.getByTestId('action-error');
    await expect(refusal).toContainText(
      'This session cannot start: it has network access (“Package downloads only” or “Unrestricted internet”), and Strong isolation (gVisor) cannot give a session network access on this Docker engine.',
      { timeout: 60_000 },
    );
    for (const raw of ['OCI', 'runsc', '"packages"', '"open"', '"none"']) await expect(refusal).not.toContainText(raw);
    await saveScreenshot(page, testInfo, 'strong-isolation-refusal');
  } finally {
    await own.dispose();
  }
});
