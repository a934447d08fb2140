/** A matplotlib chart an assistant saves shows up in Artifacts with a real picture preview. */
import { expect } from '@playwright/test';
import type { TestInfo } from '@playwright/test';
import { naturalWidth } from '../pages/artifacts-page';
import { uniqueName } from '../support/panel-api';
import { saveScreenshot } from '../support/screenshots';
import type { FlowContext } from './context';

export function plotCode(file: string): string {
  return [
    'import matplotlib',
    'matplotlib.use("Agg")',
    'import matplotlib.pyplot as plt',
    'fig, ax = plt.subplots(figsize=(4, 3))',
    'ax.plot([0, 1, 2, 3, 4], [0, 1, 4, 9, 16], marker="o")',
    'ax.set_title("Sandpit e2e")',
    `fig.savefig("/workspace/${file}", dpi=80)`,
    `print("saved ${file}")`,
  ].join('\n');
}

export async function plotAppearsInArtifacts({ panel, assistants }: FlowContext, testInfo: TestInfo): Promise<void> {
  const assistant = await assistants.connect(uniqueName('e2e-plot'));
  const file = `${uniqueName('plot')}.png`;
  const output = await assistant.run(plotCode(file), { timeoutSeconds: 90 });
  expect(output.status, output.stderr).toBe('ok');
  expect(output.stdout).toContain(`saved ${file}`);

  const artifacts = await panel.artifacts();
  const card = await artifacts.card(file);
  const thumb = card.getByTestId('artifact-thumb');
  await expect(thumb).toBeVisible();
  await expect.poll(() => naturalWidth(thumb), { message: 'the gallery thumbnail is a decoded picture' }).toBeGreaterThan(0);
  await saveScreenshot(panel.page, testInfo, 'artifacts');

  const content = await artifacts.open(card);
  await expect(content).toBeVisible();
  expect(await content.evaluate((el) => el.tagName)).toBe('IMG');
  await expect.poll(() => naturalWidth(content), { message: 'the preview is a decoded picture' }).toBeGreaterThan(0);
  await saveScreenshot(panel.page, testInfo, 'artifact-detail');
  await artifacts.closeDetail();
}
