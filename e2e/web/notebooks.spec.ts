/** A session's runs as a Jupyter notebook (session page, Activity), and a replay of them in Activity. */
import { readFile } from 'node:fs/promises';
import type { Download, Page } from '@playwright/test';
import { validateNotebook } from '../../src/test-support/nbformat';
import { uniqueName } from '../support/panel-api';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

interface Ipynb {
  metadata: { kernelspec: { name: string } };
  cells: Array<{ cell_type: string; source: string[]; outputs?: Array<{ output_type: string; text?: string[] }> }>;
}

async function notebookOf(page: Page, click: () => Promise<void>): Promise<{ download: Download; notebook: Ipynb }> {
  const downloading = page.waitForEvent('download');
  await click();
  const download = await downloading;
  const text = await readFile(await download.path(), 'utf8');
  const verdict = validateNotebook(text);
  expect(verdict.output).not.toMatch(/ValidationError/);
  expect(verdict.ok).toBe(true);
  return { download, notebook: JSON.parse(text) as Ipynb };
}

test('a session downloads as a notebook from its page and from Activity; a replay in Activity shows what matched and what differs', async ({ panel, assistants }, testInfo) => {
  const assistant = await assistants.connect(uniqueName('e2e-notebook'));
  const mark = uniqueName('nb');
  const first = await assistant.run(`print("${mark}")`);
  const sessionId = first.session_id;
  await assistant.run('import random\nprint("chance", random.random())', { sessionId });

  // The session page: "Download notebook".
  const sessions = await panel.sessions();
  const page = await sessions.open(sessionId);
  const fromPage = await notebookOf(panel.page, () => page.root.getByTestId('session-notebook').click());
  expect(fromPage.download.suggestedFilename()).toMatch(/\.ipynb$/);
  await saveScreenshot(panel.page, testInfo, 'session-notebook');
  expect(fromPage.notebook.metadata.kernelspec.name).toBe('python3');
  const code = fromPage.notebook.cells.filter((c) => c.cell_type === 'code');
  expect(code).toHaveLength(2);
  expect(code[0]!.source.join('')).toBe(`print("${mark}")`);
  expect(code[0]!.outputs).toEqual([{ output_type: 'stream', name: 'stdout', text: [`${mark}\n`] }]);

  // Activity, the runs of that one session: the same notebook, then a replay.
  const activity = await panel.activity();
  await panel.page.getByTestId('filter-session').selectOption(sessionId);
  await expect(activity.rows).toHaveCount(2);
  const bar = panel.page.getByTestId('activity-session-bar');
  await expect(bar).toBeVisible();
  const fromActivity = await notebookOf(panel.page, () => bar.getByTestId('activity-notebook').click());
  expect(fromActivity.notebook.cells.filter((c) => c.cell_type === 'code').map((c) => c.source.join(''))).toEqual(code.map((c) => c.source.join('')));

  await bar.getByTestId('activity-replay').click();
  const replay = panel.page.getByTestId('replay-panel');
  await expect(replay).toHaveAttribute('data-state', 'done', { timeout: 90_000 });
  const runs = replay.getByTestId('replay-run');
  await expect(runs).toHaveCount(2);
  await expect(runs.nth(0)).toHaveAttribute('data-outcome', 'matched');
  await expect(runs.nth(0)).toContainText('Same output');
  await expect(runs.nth(1)).toHaveAttribute('data-outcome', 'differs');
  const diff = runs.nth(1).getByTestId('replay-diff');
  await expect(diff.locator('[data-op="removed"]')).toContainText(/^− chance 0\.\d+/);
  await expect(diff.locator('[data-op="added"]')).toContainText(/^\+ chance 0\.\d+/);
  await expect(replay.getByTestId('replay-state')).toContainText('1 same, 1 different');
  await saveScreenshot(panel.page, testInfo, 'replay');

  // From the result to the replayed row, which names the original; then to the replay's runs and back.
  await runs.nth(1).getByTestId('replay-open-replay').click();
  await expect(activity.detail.getByTestId('activity-detail-replay')).toContainText('A replay of row');
  // Worked out again from the two audit rows: it holds after a reload too.
  await expect(activity.detail.getByTestId('activity-detail-comparison')).toHaveAttribute('data-outcome', 'differs');
  await expect(activity.detail.getByTestId('activity-detail-comparison').locator('[data-op="added"]')).toContainText('chance');
  await activity.detail.getByTestId('activity-detail-original').click();
  await expect(activity.detail.getByTestId('activity-detail-output')).toContainText('chance');
  await expect(activity.detail.getByTestId('activity-detail-replay')).toContainText('Replayed as row');
  await panel.page.getByTestId('activity-detail-close').click();

  await replay.getByTestId('replay-show-runs').click();
  await expect(activity.rows).toHaveCount(2);
  await expect(activity.rowsWith(mark)).toHaveCount(1);
  await expect(activity.rows.getByTestId('activity-row-replay')).toHaveCount(2);
  const replaySession = await panel.page.getByTestId('filter-session').inputValue();
  await panel.page.reload();
  await panel.waitReady();
  await expect(activity.root).toBeVisible();
  await panel.page.getByTestId('filter-session').selectOption(replaySession);
  await expect(activity.rows).toHaveCount(2);
  const reloaded = await activity.openRow(activity.rowsWith(mark));
  await expect(reloaded.getByTestId('activity-detail-comparison')).toHaveAttribute('data-outcome', 'matched');
  await expect(reloaded.getByTestId('activity-detail-comparison')).toContainText('Same output as row');
  await panel.page.getByTestId('activity-detail-close').click();
  await panel.page.getByTestId('replay-of-link').click();
  await expect(panel.page.getByTestId('filter-session')).toHaveValue(sessionId);

  // Once the session has ended (its assistant left), its page still downloads the notebook.
  await assistant.close();
  await panel.page.evaluate((id) => {
    window.location.hash = `#/sessions/${id}`;
  }, sessionId);
  const ended = panel.page.locator(`[data-testid="session-page"][data-session-id="${sessionId}"]`);
  await expect(ended.getByTestId('session-gone').or(ended.locator('[data-testid="session-state"][data-state="stopped"]'))).toBeVisible({ timeout: 30_000 });
  await saveScreenshot(panel.page, testInfo, 'ended-session-notebook');
  const afterEnd = await notebookOf(panel.page, () => ended.getByTestId('session-notebook').click());
  expect(afterEnd.notebook.cells.filter((c) => c.cell_type === 'code')).toHaveLength(2);
});
