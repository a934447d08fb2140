/**
 * #6 Settings lose nothing silently: one Save for every section, in a bar that appears when something
 * changed; leaving with unsaved changes asks (in-app navigation, Back, and the browser's own reload);
 * the server's refusal shows next to its field; the theme (system / light / dark) previews at once.
 */
import { callApi } from '../support/panel-api';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

interface Settings {
  auditRetentionDays: number;
  defaultLimits: { memoryMb?: number };
  egress: { pipIndexUrl: string };
}

test('changes wait in one Save bar; leaving asks (navigation, Back, reload); Discard drops them, Save keeps them', async ({ panel, server }, testInfo) => {
  const page = panel.page;
  const before = (await callApi(server, 'settings.get')) as Settings;
  const settings = await panel.settings();
  await expect(settings.saveBar).toHaveCount(0);
  await expect(settings.root.getByTestId('settings-save')).toHaveCount(0);

  // Two changes in two sections: one bar counts both.
  await page.getByTestId('settings-memory').fill('768');
  await page.getByTestId('settings-retention').fill('45');
  await expect(settings.saveBar).toContainText('2 changes not saved yet');
  await saveScreenshot(page, testInfo, 'settings-unsaved');

  // In-app navigation asks; "Stay here" keeps everything.
  await page.getByTestId('nav-sessions').click();
  const guard = page.getByTestId('leave-guard');
  await expect(guard).toBeVisible();
  await expect(guard).toContainText('You changed 2 settings');
  await saveScreenshot(page, testInfo, 'settings-leave-guard', { area: 'viewport' });
  await guard.getByTestId('leave-guard-close').click();
  await expect(settings.root).toBeVisible();
  await expect(page.getByTestId('settings-memory')).toHaveValue('768');
  expect(await panel.route()).toBe('#/settings');

  // The browser's Back asks too.
  await page.goBack();
  await expect(guard).toBeVisible();
  await guard.getByTestId('leave-guard-close').click();
  await expect(settings.root).toBeVisible();
  expect(await panel.route()).toBe('#/settings');

  // Reloading or closing the tab: the browser's own question.
  const asked = new Promise<string>((resolve) => page.once('dialog', (dialog) => {
    resolve(dialog.type());
    void dialog.dismiss();
  }));
  await page.evaluate(() => window.location.reload()).catch(() => undefined);
  expect(await asked).toBe('beforeunload');
  await expect(page.getByTestId('settings-memory')).toHaveValue('768');

  // Discard and leave: nothing was saved.
  await page.getByTestId('nav-activity').click();
  await guard.getByTestId('leave-guard-discard').click();
  await expect(page.getByTestId('activity-screen')).toBeVisible();
  expect(((await callApi(server, 'settings.get')) as Settings).auditRetentionDays).toBe(before.auditRetentionDays);
  await panel.settings();
  await expect(page.getByTestId('settings-retention')).toHaveValue(String(before.auditRetentionDays));

  // Save keeps it, at once and after a reload.
  try {
    await page.getByTestId('settings-retention').fill('45');
    await settings.save();
    await expect(settings.saveBar).toContainText('Saved');
    expect(((await callApi(server, 'settings.get')) as Settings).auditRetentionDays).toBe(45);
    await page.reload();
    await panel.waitReady();
    await expect(page.getByTestId('settings-retention')).toHaveValue('45');
    await page.getByTestId('nav-sessions').click();
    await expect(guard).toHaveCount(0);
  } finally {
    await callApi(server, 'settings.update', { patch: { auditRetentionDays: before.auditRetentionDays } });
  }
});

test('a value the server refuses is named next to its field, and nothing is saved', async ({ panel, server }, testInfo) => {
  const page = panel.page;
  const before = (await callApi(server, 'settings.get')) as Settings;
  const settings = await panel.settings();
  await settings.setPipIndex('ftp://mirror.example.org/simple');
  await settings.saveRefused();
  await expect(page.getByTestId('settings-pip-index-error')).toContainText('http:// or https://');
  await expect(page.getByTestId('settings-pip-index')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByTestId('settings-pip-index'), 'the field in question gets the focus').toBeFocused();
  await expect(settings.saveBar).toContainText('Not saved');
  await saveScreenshot(page, testInfo, 'settings-refused');
  expect(((await callApi(server, 'settings.get')) as Settings).egress.pipIndexUrl).toBe(before.egress.pipIndexUrl);
  // A number typed wrong is caught before anything is sent.
  await page.getByTestId('settings-memory').fill('lots');
  await settings.saveRefused();
  await expect(page.getByTestId('settings-memory-error')).toContainText('positive number');
  await settings.saveBar.getByTestId('settings-discard').click();
  await expect(settings.saveBar).toHaveCount(0);
  await expect(page.getByTestId('settings-pip-index')).toHaveValue(before.egress.pipIndexUrl);
});

test('the theme switch (like this computer / light / dark) previews at once and is kept once saved', async ({ panel }, testInfo) => {
  const page = panel.page;
  const theme = (): Promise<string | undefined> => page.evaluate(() => document.documentElement.dataset.theme);
  expect(await theme()).toBe('system');
  await panel.settings();
  await page.getByTestId('settings-theme-dark').check();
  expect(await theme()).toBe('dark');
  await expect(page.locator('body')).toHaveCSS('background-color', 'rgb(28, 26, 23)');
  await page.getByTestId('settings-save').click();
  await saveScreenshot(page, testInfo, 'settings-dark');
  await page.reload();
  await panel.waitReady();
  expect(await theme()).toBe('dark');
  await panel.settings();
  await page.getByTestId('settings-theme-light').check();
  expect(await theme()).toBe('light');
  await page.getByTestId('settings-discard').click();
  expect(await theme()).toBe('dark');
  await page.getByTestId('settings-theme-system').check();
  await page.getByTestId('settings-save').click();
  expect(await theme()).toBe('system');
});

test('the space for snapshots is a setting: a bad value is named next to its field, a good one is kept', async ({ panel, server }) => {
  const page = panel.page;
  const before = (await callApi(server, 'settings.get')) as Settings & { snapshotStoreMb: number };
  const settings = await panel.settings();
  const field = page.getByTestId('settings-snapshot-store');
  await expect(field).toHaveValue(String(before.snapshotStoreMb));
  try {
    await field.fill('lots');
    await settings.saveRefused();
    await expect(page.getByTestId('settings-snapshot-store-error')).toHaveText('Give the space for snapshots as a whole number of MiB (0 = no snapshots).');
    expect(((await callApi(server, 'settings.get')) as { snapshotStoreMb: number }).snapshotStoreMb).toBe(before.snapshotStoreMb);
    await field.fill('2048');
    await settings.save();
    await expect(settings.saveBar).toContainText('Saved');
    expect(((await callApi(server, 'settings.get')) as { snapshotStoreMb: number }).snapshotStoreMb).toBe(2048);
  } finally {
    await callApi(server, 'settings.update', { patch: { snapshotStoreMb: before.snapshotStoreMb } });
  }
});
