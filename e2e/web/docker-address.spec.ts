/**
 * #5 A wrong Docker address gets the right fix: an address is tried when it is saved (refused, naming it,
 * and nothing saved), the engines this computer points at are offered to pick from, and one is used at
 * once. A Sandpit that starts with a wrong address says which address, where it came from, and offers
 * both fixes: start Docker, or use another address — which works without a restart.
 */
import { PanelPage } from '../pages/panel-page';
import { SettingsPage } from '../pages/settings-page';
import { startOwnSandpit } from '../support/own-sandpit';
import { callApi } from '../support/panel-api';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

const NOPE = 'unix:///tmp/nope.sock';

test('an address where no Docker answers is refused when saved, naming it; an engine picked from the list is used at once', async ({ panel, server }, testInfo) => {
  const page = panel.page;
  const before = (await callApi(server, 'settings.get')) as { dockerHost?: string };
  const settings = await panel.settings();
  await expect(settings.docker.getByTestId('settings-docker-in-use')).toContainText('In use now');
  const candidates = settings.docker.getByTestId('settings-docker-candidate');
  await expect(candidates.first()).toBeVisible();
  await expect(settings.docker.locator('[data-testid="settings-docker-candidate"][data-reachable="true"]').first()).toContainText('answers here');

  await settings.docker.getByTestId('settings-docker-other').check();
  await settings.docker.getByTestId('settings-docker-host').fill(NOPE);
  await settings.saveRefused();
  const error = page.getByTestId('settings-docker-host-error');
  await expect(error).toContainText(NOPE);
  await expect(error).toContainText('no Docker engine answering');
  await saveScreenshot(page, testInfo, 'docker-address-refused');
  expect(((await callApi(server, 'settings.get')) as { dockerHost?: string }).dockerHost, 'nothing was saved').toBe(before.dockerHost);
  await expect(panel.engineStatus).toHaveAttribute('data-state', 'up');

  // Pick the engine that answers: saved, and in use at once (no restart, no restart message).
  const real = settings.docker.locator('[data-testid="settings-docker-candidate"][data-reachable="true"]').first();
  const host = await real.getAttribute('data-host');
  try {
    await real.locator('input').check();
    await settings.save();
    expect(((await callApi(server, 'settings.get')) as { dockerHost?: string }).dockerHost).toBe(host);
    await expect(panel.engineStatus).toHaveAttribute('data-state', 'up', { timeout: 30_000 });
    await expect(settings.root).not.toContainText('Restart Sandpit');
    await expect(page.getByTestId('settings-restart-needed')).toHaveCount(0);
    await expect(settings.docker.getByTestId('settings-docker-in-use')).toContainText('the Sandpit setting', { timeout: 30_000 });
    // Back to finding Docker by itself, right after: the last address saved is the one in use.
    await settings.docker.getByTestId('settings-docker-auto').check();
    await settings.save();
    await expect(panel.engineStatus).toHaveAttribute('data-state', 'up', { timeout: 30_000 });
    await expect(settings.docker.getByTestId('settings-docker-in-use')).not.toContainText('the Sandpit setting', { timeout: 30_000 });
  } finally {
    await callApi(server, 'settings.update', { patch: { dockerHost: before.dockerHost ?? null } }).catch(() => undefined);
  }
});

test('a Sandpit started with a wrong Docker address names it and offers both fixes; "Use this one" works without a restart', async ({ page, server }, testInfo) => {
  const own = await startOwnSandpit(testInfo, server.pythonImage, { settings: { dockerHost: NOPE } });
  try {
    const panel = new PanelPage(page);
    await panel.openRaw(`${own.info.url}/#token=${own.info.panelToken}`);
    await expect(panel.app).toHaveAttribute('data-connection', 'ready');
    const card = page.getByTestId('engine-card');
    await expect(card).toBeVisible({ timeout: 30_000 });
    await expect(panel.engineStatus).toHaveAttribute('data-state', 'down');
    await expect(card.getByTestId('engine-card-address')).toContainText(NOPE);
    await expect(card.getByTestId('engine-card-address')).toContainText('the Docker address set in Settings');
    await expect(card).toContainText('If Docker is not running: start it');
    await expect(card).toContainText('If the address is wrong');
    await expect(card.getByTestId('engine-card-reset')).toBeVisible();
    const use = card.getByTestId('engine-card-use').first();
    await expect(use).toBeVisible({ timeout: 20_000 });
    await saveScreenshot(page, testInfo, 'docker-down-card');

    await use.click();
    await expect(card).toBeHidden({ timeout: 30_000 });
    await expect(panel.engineStatus).toHaveAttribute('data-state', 'up');
    const saved = (await callApi(own.info, 'settings.get')) as { dockerHost?: string };
    expect(saved.dockerHost).not.toBe(NOPE);
    // Sessions start on it, with no restart of Sandpit.
    await expect(page.getByTestId('session-new')).toBeEnabled();
    const settings = new SettingsPage(page);
    await panel.settings();
    await expect(settings.docker.getByTestId('settings-docker-in-use')).toContainText('In use now');
    await saveScreenshot(page, testInfo, 'docker-fixed');
  } finally {
    await own.dispose();
  }
});
