/**
 * #9 The same behaviour everywhere: every screen and session has its own address (Back and Forward work),
 * Stop asks in the list as on the page, the count of assistants follows connections that close, Files
 * follows a run, a failed run says "Failed" without "0 ms", focus lands on a new session's heading, the
 * Activity client filter finds part of a name in any case, and an approval card never hides the Save button.
 */
import { SessionPage } from '../pages/session-page';
import { callApi, uniqueName } from '../support/panel-api';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

test('Back and Forward move between screens and a session, each with its own address and title', async ({ panel, assistants }) => {
  const page = panel.page;
  const assistant = await assistants.connect(uniqueName('e2e-nav'));
  const run = await assistant.run('print(1)');
  const sessions = await panel.sessions();
  await sessions.open(run.session_id);
  expect(await panel.route()).toBe(`#/sessions/${run.session_id}`);
  await panel.environments();
  await panel.activity();
  expect(await panel.route()).toBe('#/activity');
  await expect(page).toHaveTitle('Activity — Sandpit');

  await page.goBack();
  await expect(page.getByTestId('environments-screen')).toBeVisible();
  await expect(page).toHaveTitle('Environments — Sandpit');
  await page.goBack();
  await expect(page.locator(`[data-testid="session-page"][data-session-id="${run.session_id}"]`)).toBeVisible();
  await page.goBack();
  await expect(page.getByTestId('sessions-screen')).toBeVisible();
  await page.goForward();
  await expect(page.locator(`[data-testid="session-page"][data-session-id="${run.session_id}"]`)).toBeVisible();
  await page.goForward();
  await expect(page.getByTestId('environments-screen')).toBeVisible();

  // A session's address opens it directly (e.g. a bookmark, or a reload).
  await page.reload();
  await panel.waitReady();
  await expect(page.getByTestId('environments-screen')).toBeVisible();
  await page.evaluate((id) => {
    window.location.hash = `#/sessions/${id}`;
  }, run.session_id);
  await expect(page.locator(`[data-testid="session-page"][data-session-id="${run.session_id}"]`)).toBeVisible();
});

test('Stop asks in the list too; a new session gets the focus on its heading; Files follows a run; a failed run says "Failed"', async ({ panel }, testInfo) => {
  const page = panel.page;
  const sessions = await panel.sessions();
  await page.getByTestId('session-new').click();
  await page.getByTestId('new-session-environment-python').check();
  await page.getByTestId('new-session-start').click();
  const sessionPage = page.getByTestId('session-page');
  await expect(sessionPage).toBeVisible({ timeout: 60_000 });
  const id = (await sessionPage.getAttribute('data-session-id'))!;
  const heading = sessionPage.locator('h1');
  await expect(heading).toBeFocused();
  await expect(heading).toContainText('Python');

  const session = new SessionPage(page, id);
  const files = await session.files();
  await expect(page.getByTestId('files-empty')).toBeVisible();
  await session.runHere('open("/workspace/notes.txt", "w").write("hello")');
  await expect(files.filter({ hasText: 'notes.txt' })).toBeVisible();

  await session.runHere('1/0');
  const done = session.done.last();
  await expect(done).toHaveAttribute('data-status', 'error');
  await expect(done).toHaveText('Failed');
  await expect(session.console.getByTestId('console-error').last()).toContainText('ZeroDivisionError');
  await expect(session.console.locator(':scope > *').last(), 'how the run ended is its last line').toHaveAttribute('data-testid', 'console-done');
  await expect(session.console).not.toContainText(' in 0 ms');
  await expect(session.console).not.toContainText('Error in');
  await saveScreenshot(page, testInfo, 'consistency-session');

  // Stop from the list asks, like the page does; "Cancel" keeps it running.
  await panel.sessions();
  await sessions.stop(id, false);
  await expect(sessions.row(id).getByTestId('session-state')).toHaveText('Ready');
  await sessions.stop(id, true);
  await expect(sessions.row(id)).toHaveCount(0, { timeout: 30_000 });
});

test('the count of connected assistants follows connections that close', async ({ panel, assistants }) => {
  const page = panel.page;
  const name = uniqueName('Claude Desktop');
  const a = await assistants.connect(name);
  const b = await assistants.connect(name);
  const other = await assistants.connect(uniqueName('Cursor'));
  const status = page.getByTestId('status-clients');
  await expect(status).toContainText(name);
  await expect(status).toContainText(other.name);
  const count = async (): Promise<number> => Number(/^(\d+) assistants?/.exec((await status.innerText()).trim())?.[1] ?? 0);
  const withAll = await count();
  // One app with two connections counts once.
  const connect = await panel.connect();
  await expect(connect.clients.filter({ hasText: name })).toHaveCount(1);
  await expect(connect.clients.filter({ hasText: name })).toContainText('2 connections');
  await other.close();
  await expect(status).not.toContainText(other.name);
  expect(await count()).toBe(withAll - 1);
  await a.close();
  await expect(connect.clients.filter({ hasText: name })).not.toContainText('2 connections');
  await b.close();
  await expect(status).not.toContainText(name);
});

test('the Activity client filter finds part of a name, in any case', async ({ panel, assistants }) => {
  const mark = uniqueName('partial');
  const assistant = await assistants.connect(`Claude Desktop ${mark}`);
  await assistant.run(`print("${mark}")`);
  const activity = await panel.activity();
  await activity.filterClient(`CLAUDE DESKTOP ${mark.toUpperCase()}`);
  await expect(activity.rowsWith(mark)).toHaveCount(1);
  await activity.filterClient(mark.slice(0, 12).toUpperCase());
  await expect(activity.rowsWith(mark)).toHaveCount(1);
  await activity.filterClient('nobody-has-this-name');
  await expect(activity.rows).toHaveCount(0);
});

test('an approval card does not cover the Settings Save button', async ({ panel, assistants, server }, testInfo) => {
  const page = panel.page;
  const name = uniqueName('e2e-overlap');
  const settings = await panel.settings();
  await settings.askEveryTime(name);
  const before = (await callApi(server, 'settings.get')) as { auditRetentionDays: number };
  try {
    const assistant = await assistants.connect(name);
    // Something changed and not saved: the Save bar shows; then a request arrives.
    await page.getByTestId('settings-retention').fill(String(before.auditRetentionDays + 1));
    await expect(settings.saveBar).toBeVisible();
    const waiting = assistant.execute('print("overlap")');
    const card = await panel.approvals.waitFor('print("overlap")');
    const save = settings.saveBar.getByTestId('settings-save');
    const [a, b] = [await card.boundingBox(), await save.boundingBox()];
    expect(a && b).toBeTruthy();
    const overlap = a!.x < b!.x + b!.width && b!.x < a!.x + a!.width && a!.y < b!.y + b!.height && b!.y < a!.y + a!.height;
    expect(overlap, 'the approval card leaves the Save button free').toBe(false);
    await saveScreenshot(page, testInfo, 'consistency-approval-and-save', { area: 'viewport' });
    await save.click();
    await expect(settings.saveBar).toHaveAttribute('data-state', 'saved');
    await panel.approvals.deny(card);
    await waiting;
  } finally {
    await callApi(server, 'settings.update', { patch: { auditRetentionDays: before.auditRetentionDays } });
    const again = await panel.settings();
    await again.removeRule(name);
  }
});
