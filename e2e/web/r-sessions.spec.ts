/**
 * R in the panel: a person makes an R environment (New environment, language R), starts a session from it, runs
 * a plot from the session's "Run code" box and sees the picture in the live output, then in Artifacts.
 */
import { naturalWidth } from '../pages/artifacts-page';
import { SessionPage } from '../pages/session-page';
import { callApi, uniqueName } from '../support/panel-api';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

test('a person makes an R environment, runs a plot in its session and sees the picture', async ({ panel, server }, testInfo) => {
  test.setTimeout(300_000);
  const page = panel.page;
  const envs = await panel.environments();
  const name = uniqueName('My R');

  await page.getByTestId('env-new').click();
  await expect(envs.form).toBeVisible();
  await envs.form.getByTestId('env-name').fill(name);
  await envs.form.getByTestId('env-language').selectOption('r');
  // The language brings its own base and package manager, in words.
  await expect(envs.form.getByTestId('env-base').locator('option:checked')).toHaveText('R (its recommended packages included)');
  await expect(envs.form.getByText('R packages (CRAN)')).toBeVisible();
  await envs.form.getByTestId('env-save').click();
  await expect(envs.form).toBeHidden();

  const row = envs.row(name);
  await expect(row).toBeVisible();
  await expect(row).toHaveAttribute('data-build-state', 'plain');
  await expect(row.getByTestId('env-comes-with')).toContainText('MASS');
  await row.getByTestId('env-start-session').click();

  const opened = page.locator('[data-testid="session-page"]');
  await expect(opened).toBeVisible({ timeout: 240_000 });
  const sessionId = (await opened.getAttribute('data-session-id')) ?? '';
  expect(sessionId).not.toBe('');
  try {
    const session = new SessionPage(page, sessionId);
    await expect(session.root.locator('#snippet-title')).toHaveText('Run R code in this session');
    await expect(session.root.getByTestId('snippet-code')).toHaveAttribute('placeholder', 'x <- c(2, 4, 9)\nsummary(x)');
    await session.runHere('x <- c(2, 4, 9)\nplot(x, type = "b", main = "Sandpit")\nmean(x)');
    await expect(session.done.last()).toHaveAttribute('data-status', 'ok');
    await expect(session.stdoutWith('[1] 5')).toHaveCount(1);
    const picture = session.console.getByTestId('console-display').locator('img');
    await expect(picture).toHaveCount(1);
    await expect.poll(() => naturalWidth(picture), { timeout: 10_000 }).toBe(672);
    await saveScreenshot(page, testInfo, 'r-plot-live');

    // The same picture is kept in Artifacts, named by the session it came from.
    const info = (await callApi(server, 'sessions.get', { sessionId })) as { name: string };
    const artifacts = await panel.artifacts();
    const card = await artifacts.card(info.name);
    const shown = await artifacts.open(card);
    await expect.poll(() => naturalWidth(shown), { timeout: 10_000 }).toBe(672);
    await saveScreenshot(page, testInfo, 'r-plot-artifact');
  } finally {
    await callApi(server, 'sessions.stop', { sessionId });
  }
});
