/**
 * #10 From 800×600 up: every screen fits (nothing cut off sideways, the navigation a narrow strip), the
 * Activity "Result" column is inside the window, and the page title names the screen.
 */
import { NAV_SCREENS } from '../pages/panel-page';
import { uniqueName } from '../support/panel-api';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

const TITLES: Record<string, string> = {
  sessions: 'Sessions — Sandpit',
  environments: 'Environments — Sandpit',
  artifacts: 'Artifacts — Sandpit',
  snapshots: 'Snapshots — Sandpit',
  activity: 'Activity — Sandpit',
  connect: 'Connect — Sandpit',
  settings: 'Settings — Sandpit',
};

test.use({ viewport: { width: 800, height: 600 } });

test('at 800×600 every screen fits the window, the navigation is a strip, and the title names the screen', async ({ panel, assistants }, testInfo) => {
  const page = panel.page;
  const assistant = await assistants.connect(uniqueName('e2e-small'));
  const run = await assistant.run('print("small screens")');

  const nav = await page.getByTestId('nav').boundingBox();
  expect(nav!.width, 'the navigation is a narrow strip').toBeLessThanOrEqual(100);
  // Every label fits the strip whole.
  for (const label of await page.locator('.nav-label').all()) expect(await label.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
  // Its labels stay readable as tooltips.
  await expect(page.getByTestId('nav-environments')).toHaveAttribute('title', /Environments/);

  for (const screen of NAV_SCREENS) {
    await panel.go(screen);
    await expect(page).toHaveTitle(TITLES[screen]!);
    const overflow = await page.evaluate(() => {
      const main = document.getElementById('main')!;
      return { page: document.documentElement.scrollWidth - window.innerWidth, main: main.scrollWidth - main.clientWidth };
    });
    expect(overflow.page, `${screen}: nothing sticks out of the window`).toBeLessThanOrEqual(0);
    expect(overflow.main, `${screen}: nothing is cut off in the screen area`).toBeLessThanOrEqual(0);
    await saveScreenshot(page, testInfo, `small-${screen}`, { area: 'viewport' });
  }

  // Activity: the Result column is inside the window, for the header and the rows.
  await panel.go('activity');
  const result = page.getByTestId('activity-col-result');
  const box = await result.boundingBox();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(800);
  const firstRow = page.getByTestId('activity-row').first();
  const cell = firstRow.getByTestId('activity-row-status');
  await expect(cell).toBeVisible();
  const cellBox = await cell.boundingBox();
  expect(cellBox!.x + cellBox!.width).toBeLessThanOrEqual(800);

  // A session page fits too.
  await panel.go('sessions');
  await page.locator(`[data-testid="session-row"][data-session-id="${run.session_id}"]`).getByTestId('session-open').click();
  await expect(page).toHaveTitle(/— Sessions — Sandpit$/);
  const sessionOverflow = await page.evaluate(() => document.getElementById('main')!.scrollWidth - document.getElementById('main')!.clientWidth);
  expect(sessionOverflow).toBeLessThanOrEqual(0);
  await saveScreenshot(page, testInfo, 'small-session', { area: 'viewport' });
});
