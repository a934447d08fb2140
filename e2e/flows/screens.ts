/** A walk through every screen of the panel, each checked for its main content and photographed. */
import { expect } from '@playwright/test';
import type { TestInfo } from '@playwright/test';
import { uniqueName } from '../support/panel-api';
import { saveScreenshot } from '../support/screenshots';
import type { FlowContext } from './context';

export async function everyScreen({ panel, assistants, server }: FlowContext, testInfo: TestInfo): Promise<void> {
  const assistant = await assistants.connect(uniqueName('e2e-tour'));
  const run = await assistant.run('import sys\nprint("hello from", sys.version.split()[0])\n6 * 7');
  expect(run.result).toBe('42');

  const sessions = await panel.sessions();
  await expect(sessions.row(run.session_id)).toBeVisible();
  await saveScreenshot(panel.page, testInfo, 'sessions');
  const session = await sessions.open(run.session_id);
  await expect(session.root.getByTestId('session-state')).toBeVisible();
  await saveScreenshot(panel.page, testInfo, 'session-page-idle');

  const envs = await panel.environments();
  await expect(envs.presets).toBeVisible();
  await saveScreenshot(panel.page, testInfo, 'environments-list');

  const artifacts = await panel.artifacts();
  await expect(artifacts.root.getByRole('heading', { name: 'Artifacts' })).toBeVisible();
  await saveScreenshot(panel.page, testInfo, 'artifacts-screen');

  const activity = await panel.activity();
  await expect(activity.rows.first()).toBeVisible();
  await saveScreenshot(panel.page, testInfo, 'activity-screen');

  const connect = await panel.connect();
  await expect(connect.mcpUrl).toHaveText(`${server.url}/mcp`);
  await expect(connect.clients.filter({ hasText: assistant.name })).toBeVisible();
  await saveScreenshot(panel.page, testInfo, 'connect');

  const settings = await panel.settings();
  await expect(settings.approvals).toBeVisible();
  await saveScreenshot(panel.page, testInfo, 'settings-screen');
}
