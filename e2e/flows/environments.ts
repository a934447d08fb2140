/** Environments: presets listed; a plain one is ready at once; a build of a package that cannot exist fails naming it. */
import { expect } from '@playwright/test';
import type { TestInfo } from '@playwright/test';
import { uniqueName } from '../support/panel-api';
import { saveScreenshot } from '../support/screenshots';
import type { FlowContext } from './context';

/** A pip name no index has (the e2e core's index serves only the demo packages). */
export const MISSING_PACKAGE = 'sandpit-no-such-pkg-e2e';

export async function presetsAndPlainEnvironment({ panel }: FlowContext, testInfo: TestInfo): Promise<void> {
  const envs = await panel.environments();
  for (const id of ['python', 'python-data', 'node', 'bash', 'typescript', 'r']) {
    await expect(envs.preset(id)).toBeVisible();
    await expect(envs.preset(id).getByTestId('env-preset')).toHaveText('Preset');
  }
  const name = uniqueName('e2e-plain');
  const row = await envs.create(name);
  await expect(row).toHaveAttribute('data-build-state', 'plain');
  await expect(envs.buildState(name)).toHaveText('Ready to use');
  await expect(row.getByTestId('env-build')).toHaveCount(0);
  await saveScreenshot(panel.page, testInfo, 'environments');
}

export async function failedBuildNamesThePackage({ panel }: FlowContext, testInfo: TestInfo): Promise<void> {
  const envs = await panel.environments();
  const name = uniqueName('e2e-broken');
  const row = await envs.create(name, [MISSING_PACKAGE]);
  await expect(row).toHaveAttribute('data-build-state', 'idle');
  await envs.build(name);
  // The build runs: its log opens and fills while it goes.
  await expect(row).toHaveAttribute('data-build-state', 'building');
  await expect(envs.buildLog(name)).toBeVisible();
  await expect(envs.buildLines(name).first()).toBeVisible({ timeout: 60_000 });
  await saveScreenshot(panel.page, testInfo, 'environment-building');
  await expect(row).toHaveAttribute('data-build-state', 'failed', { timeout: 100_000 });
  await expect(envs.buildState(name)).toHaveText('Build failed');
  await expect(envs.failedChip(name)).toHaveText(MISSING_PACKAGE);
  await expect(row.getByTestId('env-build-error')).toContainText(MISSING_PACKAGE);
  // The log line that names the package is marked.
  await expect(envs.buildLines(name).filter({ hasText: MISSING_PACKAGE }).first()).toHaveClass(/log-bad/);
  await saveScreenshot(panel.page, testInfo, 'environment-build-failed');
}
