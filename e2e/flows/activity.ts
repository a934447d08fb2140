/** Runs land in Activity: filter by client, search in code, open one, export CSV, chain intact. */
import { readFile } from 'node:fs/promises';
import { expect } from '@playwright/test';
import type { TestInfo } from '@playwright/test';
import { uniqueName } from '../support/panel-api';
import { saveScreenshot } from '../support/screenshots';
import type { FlowContext, FlowOptions } from './context';

export async function runsAppearFilterAndExport(
  { panel, assistants }: FlowContext,
  testInfo: TestInfo,
  options: FlowOptions,
): Promise<void> {
  const alice = await assistants.connect(uniqueName('e2e-alice'));
  const bob = await assistants.connect(uniqueName('e2e-bob'));
  const markA = uniqueName('markA');
  const markB = uniqueName('markB');
  const codeA = `print("${markA}")`;
  const codeB = `value = "${markB}"\nprint(value.upper())`;
  await alice.run(codeA);
  await bob.run(codeB);

  const activity = await panel.activity();
  await expect(activity.chain).toHaveAttribute('data-state', 'intact');
  await expect(activity.chain).toContainText('Log intact');
  await expect(activity.rowsWith(markA)).toHaveCount(1);
  await expect(activity.rowsWith(markB)).toHaveCount(1);
  await expect(activity.rowsWith(markA)).toHaveAttribute('data-status', 'ok');
  await expect(activity.rowsWith(markA)).toContainText(alice.name);
  await saveScreenshot(panel.page, testInfo, 'activity');

  // Filter by client: only alice's rows remain.
  await activity.filterClient(alice.name);
  await expect(activity.rowsWith(markB)).toHaveCount(0);
  await expect(activity.rowsWith(markA)).toHaveCount(1);
  await expect.poll(() => activity.clientsShown()).toEqual([alice.name]);

  // Search in code: exactly bob's run.
  await activity.clearFilters();
  await activity.search(markB);
  await expect(activity.rows).toHaveCount(1);
  await expect(activity.rowsWith(bob.name)).toHaveCount(1);
  const detail = await activity.openRow(activity.rows.first());
  await expect(detail.getByTestId('activity-detail-code')).toContainText(`value = "${markB}"`);
  await expect(detail.getByTestId('activity-detail-output')).toContainText(markB.toUpperCase());
  await saveScreenshot(panel.page, testInfo, 'activity-detail');
  await panel.page.getByTestId('activity-detail-close').click();
  await expect(activity.detail).toBeHidden();
  await activity.clearFilters();
  await expect(activity.rowsWith(markA)).toHaveCount(1);

  if (!options.downloads) {
    testInfo.annotations.push({ type: 'note', description: 'CSV export not checked here: Electron opens a save dialog for downloads.' });
    return;
  }
  const download = await activity.exportCsv();
  expect(download.suggestedFilename()).toMatch(/^sandpit-activity-.*\.csv$/);
  const csv = await readFile(await download.path(), 'utf8');
  expect(csv.split('\n')[0]).toContain('code');
  expect(csv).toContain(markA);
  expect(csv).toContain(`value = ""${markB}""`); // CSV doubles the quotes inside a quoted field
  expect(csv).toContain(alice.name);
  expect(csv).toContain(bob.name);
  await testInfo.attach('activity export.csv', { body: csv, contentType: 'text/csv' });
}
