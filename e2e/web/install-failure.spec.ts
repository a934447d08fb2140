/**
 * #4 Install failures in words: with a package index that cannot be reached (set in Settings, as an offline
 * computer would have it), a build of httpx and numpy says the cause, both packages, and what to do —
 * with the raw log behind "Show details" — and "Start session" says the build failed before starting
 * anything. A runtime install by an assistant says the same in Activity. The setting is put back after.
 * (httpx, as no base image brings it: the Python bases carry requests for secrets, so requests needs no download.)
 */
import { UNREACHABLE_PIP_INDEX } from '../support/serve-process';
import { callApi, uniqueName } from '../support/panel-api';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

test('an offline build of httpx and numpy says why in words, names both, says what to do, and keeps the raw log one click away', async ({ panel, assistants, server }, testInfo) => {
  test.setTimeout(240_000);
  const page = panel.page;
  const before = (await callApi(server, 'settings.get')) as { egress: { pipIndexUrl: string } };
  try {
    // The person's computer cannot reach the package index: set as Settings would have it.
    const settings = await panel.settings();
    await settings.setPipIndex(UNREACHABLE_PIP_INDEX);
    await settings.save();

    const envs = await panel.environments();
    const name = uniqueName('Offline data');
    const row = await envs.create(name, ['httpx', 'numpy']);
    await envs.build(name);
    await expect(row).toHaveAttribute('data-build-state', 'failed', { timeout: 180_000 });
    const problem = row.getByTestId('env-build-problem');
    await expect(problem).toHaveAttribute('data-cause', 'unreachable');
    await expect(problem.getByTestId('env-build-error')).toContainText('Sandpit could not reach the package index (127.0.0.1:9)');
    await expect(problem.getByTestId('env-build-error')).toContainText('seems to be offline');
    await expect(problem.getByTestId('env-build-affected')).toContainText('httpx');
    await expect(problem.getByTestId('env-build-affected')).toContainText('numpy');
    const fixes = problem.getByTestId('env-build-fix');
    await expect(fixes.filter({ hasText: 'internet connection' })).toHaveCount(1);
    await expect(fixes.filter({ hasText: 'mirror' })).toHaveCount(1);
    await expect(fixes.filter({ hasText: 'Python (data)' })).toHaveCount(1);
    await expect(problem.getByTestId('env-build-settings')).toBeVisible();
    // Both packages are marked, not only the first.
    await expect(row.locator('.chip[data-failed]')).toHaveCount(2);
    // No installer jargon in the words; it is in the details.
    await expect(problem).not.toContainText('pip install');
    await expect(problem).not.toContainText('returned a non-zero code');
    await saveScreenshot(page, testInfo, 'install-offline-build');

    // The raw log, one click away.
    await page.reload();
    await panel.waitReady();
    const reloaded = (await panel.environments()).row(name);
    await expect(reloaded.getByTestId('env-build-log')).toHaveCount(0);
    await reloaded.getByTestId('env-build-details').click();
    const log = reloaded.getByTestId('env-build-log');
    await expect(log).toBeVisible();
    await expect(log).toHaveAttribute('data-source', 'saved');
    await expect(log).toContainText('pip');
    await saveScreenshot(page, testInfo, 'install-offline-details');

    // "Start session" says the build failed before it starts anything.
    const sessionsBefore = ((await callApi(server, 'sessions.list')) as { sessions: unknown[] }).sessions.length;
    await reloaded.getByTestId('env-start-session').click();
    const said = page.getByTestId('env-failed-start');
    await expect(said).toBeVisible();
    await expect(said).toContainText('cannot start a session yet');
    await expect(said).toContainText('could not reach the package index');
    await said.getByTestId('env-failed-start-close').click();
    expect(((await callApi(server, 'sessions.list')) as { sessions: unknown[] }).sessions.length).toBe(sessionsBefore);

    // The New session dialog marks it too.
    await panel.sessions();
    await page.getByTestId('session-new').click();
    const choice = page.getByTestId('new-session-choice').filter({ hasText: name });
    await expect(choice).toContainText('Build failed');
    await choice.locator('input').check();
    await expect(page.getByTestId('new-session-start')).toHaveCount(0);
    await expect(page.getByTestId('new-session-fix')).toBeVisible();
    await saveScreenshot(page, testInfo, 'install-offline-new-session', { area: 'viewport' });
    await page.getByTestId('new-session-dialog-close').click();

    // A runtime install by an assistant: the same words in Activity.
    const assistant = await assistants.connect(uniqueName('e2e-installer'));
    const first = await assistant.run('print("ready")');
    const installed = await assistant.client.callTool({ name: 'install_packages', arguments: { session_id: first.session_id, packages: ['httpx'] } }, undefined, { timeout: 120_000 });
    expect(JSON.stringify(installed)).toContain('could not reach');
    const activity = await panel.activity();
    await activity.filterClient(assistant.name);
    const installRow = activity.rows.filter({ hasText: 'Install' }).first();
    await expect(installRow).toHaveAttribute('data-status', 'error');
    const detail = await activity.openRow(installRow);
    await expect(detail.getByTestId('activity-detail-error')).toContainText('Could not install httpx');
    await expect(detail.getByTestId('activity-detail-output')).toContainText('could not reach the package index');
    await saveScreenshot(page, testInfo, 'install-offline-runtime');
  } finally {
    await callApi(server, 'settings.update', { patch: { egress: { pipIndexUrl: before.egress.pipIndexUrl } } });
  }
});
