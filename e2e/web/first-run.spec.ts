/**
 * #1 A first step for a new person: a fresh Sandpit (its own data folder: no assistant ever ran code) opens
 * on a guide — connect your assistant, try a first run, see it here — that goes away once an assistant has
 * connected and run code, and can be opened again.
 */
import { PanelPage } from '../pages/panel-page';
import { connectAssistant } from '../support/mcp';
import { startOwnSandpit } from '../support/own-sandpit';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

test('a fresh panel opens on the getting-started guide, which follows the first assistant and goes away after its first run', async ({ page, server }, testInfo) => {
  const own = await startOwnSandpit(testInfo, server.pythonImage);
  try {
    const panel = new PanelPage(page);
    await panel.openWithToken(own.info.url, own.info.panelToken);
    expect(await panel.route()).toBe('#/sessions');

    // The guide is the first thing on the home screen, with its three steps not done yet.
    await expect(panel.guide).toBeVisible();
    const steps = panel.guide.getByTestId('guide-step');
    await expect(steps).toHaveCount(3);
    await expect(steps.nth(0)).toContainText('Connect your assistant');
    await expect(steps.nth(1)).toContainText('Try a first run');
    await expect(steps.nth(2)).toContainText('See it here');
    for (let i = 0; i < 3; i++) await expect(steps.nth(i)).toHaveAttribute('data-done', 'false');
    // The one-click setup for the person's own app: where to paste it, and the text that gets copied.
    await panel.guide.getByTestId('guide-app-cursor').click();
    await expect(panel.guide.getByTestId('guide-where')).toContainText('Cursor');
    await panel.guide.getByText('Show what gets copied').click();
    await expect(panel.guide.getByTestId('guide-config')).toContainText('mcp');
    await expect(panel.clientsStatus).toHaveText('No assistant connected');
    await saveScreenshot(page, testInfo, 'first-run-guide');

    // The assistant connects: step 1 is done, the guide stays for the first run.
    const assistant = await connectAssistant(own.info, 'Claude Desktop');
    try {
      await expect(steps.nth(0)).toHaveAttribute('data-done', 'true');
      await expect(steps.nth(0)).toContainText('Connected: Claude Desktop');
      await expect(steps.nth(1)).toHaveAttribute('data-done', 'false');
      await expect(panel.clientsStatus).toHaveText('1 assistant connected (Claude Desktop)');
      await saveScreenshot(page, testInfo, 'first-run-connected');

      // Its first run: the guide goes away, the session is there.
      const run = await assistant.run('print("hello from my first run")');
      await expect(panel.guide).toBeHidden();
      await expect(page.getByTestId('guide-finished')).toContainText('You are all set');
      await expect(page.getByTestId('session-row').filter({ hasText: 'Python' })).toBeVisible();
      await expect(page.getByTestId('session-row')).toHaveAttribute('data-session-id', run.session_id);
      await saveScreenshot(page, testInfo, 'first-run-done');

      // It stays away after a reload, and opens again from Sessions and from Connect.
      await page.reload();
      await panel.waitReady();
      await expect(page.getByTestId('session-row')).toBeVisible();
      await expect(panel.guide).toBeHidden();
      await page.getByTestId('guide-open').click();
      await expect(page.getByTestId('guide-screen')).toBeVisible();
      expect(await panel.route()).toBe('#/getting-started');
      await expect(page).toHaveTitle('Getting started — Sandpit');
      await expect(page.getByTestId('guide-all-set')).toBeVisible();
      await expect(page.locator('[data-testid="guide-step"][data-done="true"]')).toHaveCount(3);
      await saveScreenshot(page, testInfo, 'first-run-reopened');
      await page.goBack();
      await expect(page.getByTestId('sessions-screen')).toBeVisible();
      await panel.connect();
      await page.getByTestId('connect-guide-open').click();
      await expect(page.getByTestId('guide-screen')).toBeVisible();
    } finally {
      await assistant.close();
    }
  } finally {
    await own.dispose();
  }
});

test('the guide can be hidden and stays hidden until it is opened again', async ({ page, server }, testInfo) => {
  const own = await startOwnSandpit(testInfo, server.pythonImage);
  try {
    const panel = new PanelPage(page);
    await panel.openWithToken(own.info.url, own.info.panelToken);
    await expect(panel.guide).toBeVisible();
    await panel.guide.getByTestId('guide-dismiss').click();
    await expect(panel.guide).toBeHidden();
    await expect(page.getByTestId('sessions-empty')).toContainText('No sessions yet');
    await page.reload();
    await panel.waitReady();
    await expect(panel.guide).toBeHidden();
    await page.getByTestId('guide-open').click();
    await expect(page.getByTestId('guide-screen')).toBeVisible();
    await panel.sessions();
    await expect(panel.guide).toBeVisible();
  } finally {
    await own.dispose();
  }
});
