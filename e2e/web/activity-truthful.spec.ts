/**
 * Issue 21, "What is said must be true" #8: Activity's time had no date; ended sessions lost their names
 * ("Ended session") and their place in the Session filter; "Log broken at row 2" could not be followed (no
 * row numbers, nothing marked); a run waiting for approval was shown as "Running".
 */
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { connectAssistant, textOf } from '../support/mcp';
import { startOwnSandpit } from '../support/own-sandpit';
import { PanelPage } from '../pages/panel-page';
import { uniqueName } from '../support/panel-api';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

test('Activity: a date on every time, ended sessions by name (in the filter too), a waiting run says it waits', async ({ panel, assistants }, testInfo) => {
  const assistant = await assistants.connect(uniqueName('activity-words'));
  const marker = uniqueName('ended-run');
  const run = await assistant.run(`print("${marker}")`);
  const sessions = await panel.sessions();
  const name = (await sessions.row(run.session_id).getByTestId('session-name').innerText()).trim();
  await sessions.stop(run.session_id);
  await expect(sessions.row(run.session_id)).toHaveCount(0);

  const activity = await panel.activity();
  const row = activity.rowsWith(marker).first();
  await expect(row.getByTestId('activity-row-time')).toHaveText(/^Today, \d/);
  await expect(row.locator('.acol-session')).toHaveText(name);
  await expect(row).not.toContainText('Ended session');
  await expect(row.getByTestId('activity-row-number')).toHaveText(/^\d+$/);
  const filter = panel.page.getByTestId('filter-session');
  await expect(filter.locator(`option[value="${run.session_id}"]`)).toHaveText(`${name} (ended)`);
  await filter.selectOption(run.session_id);
  await expect(activity.rows).toHaveCount(1);
  await expect(panel.page.getByTestId('activity-screen')).toContainText(name);
  await filter.selectOption('');

  // A run waiting for the person's answer says so, not "Running".
  const settings = await panel.settings();
  await settings.askEveryTime(assistant.name);
  try {
    const waiting = uniqueName('waiting-run');
    const call = assistant.execute(`print("${waiting}")`);
    const card = await panel.approvals.waitFor(waiting);
    const again = await panel.activity();
    const open = again.rowsWith(waiting).first();
    await expect(open.getByTestId('activity-row-status')).toHaveText('Waiting for your approval');
    await expect(open).toHaveAttribute('data-waiting', 'approval');
    await saveScreenshot(panel.page, testInfo, 'activity-waiting');
    await panel.approvals.approve(card);
    expect(textOf(await call)).toContain(waiting);
    await expect(open.getByTestId('activity-row-status')).toHaveText('Finished');
  } finally {
    const back = await panel.settings();
    await back.removeRule(assistant.name);
  }
});

test('a log broken at row 2 (edited while Sandpit was stopped): the row is numbered, marked, and one click opens it', async ({ page, server }, testInfo) => {
  const own = await startOwnSandpit(testInfo, server.pythonImage);
  try {
    const assistant = await connectAssistant(own.info, uniqueName('tamper-victim'));
    for (const n of [1, 2, 3]) await assistant.run(`print("run ${n}")`);
    await assistant.close();
    await own.stop();
    // Someone changes what row 2 says ran, with Sandpit stopped.
    const db = new DatabaseSync(join(own.home, 'audit.db'));
    db.prepare('UPDATE audit SET code = ? WHERE id = 2').run('print("something else")');
    db.close();
    await own.start();

    const panel = new PanelPage(page);
    await panel.openWithToken(own.info.url, own.info.panelToken);
    const activity = await panel.activity();
    await expect(activity.chain).toHaveAttribute('data-state', 'broken');
    await expect(activity.chain).toContainText('Log broken at row 2');
    const broken = page.locator('[data-testid="activity-row"][data-broken="true"]');
    await expect(broken).toHaveCount(1);
    await expect(broken).toHaveAttribute('data-audit-id', '2');
    await expect(broken.getByTestId('activity-row-number')).toHaveText('2');
    await saveScreenshot(page, testInfo, 'activity-broken-row');
    await activity.chain.getByTestId('chain-open-row').click();
    await expect(activity.detail).toBeVisible();
    await expect(activity.detail.getByTestId('activity-detail-code')).toHaveText('print("something else")');
  } finally {
    await own.dispose();
  }
});
