import { expect } from '@playwright/test';
import { uniqueName } from '../support/panel-api';
import { saveScreenshot } from '../support/screenshots';
import { test } from './fixtures';

test('a background run shows live on its session page, marked "Background", and the person cancels it there', async ({ panel, assistants }, testInfo) => {
  const assistant = await assistants.connect(uniqueName('e2e-background'));
  const first = await assistant.run('print("warming up")');
  const session = await (await panel.sessions()).open(first.session_id);

  const marker = uniqueName('bg');
  const started = await assistant.client.callTool({
    name: 'execute_code',
    arguments: { session_id: first.session_id, background: true, code: `import time\nfor i in range(60):\n    print("${marker}", i, flush=True)\n    time.sleep(1)` },
  });
  const runId = (started.structuredContent as { run_id: string }).run_id;

  const row = panel.page.locator(`[data-testid="background-run"][data-run-id="${runId}"]`);
  await expect(panel.page.getByRole('heading', { name: 'Background runs' })).toBeVisible({ timeout: 15_000 });
  await expect(row.getByTestId('background-run-mark')).toHaveText('Background');
  await expect(row).toContainText(`Code from ${assistant.name}: import time`);
  await expect(row.getByTestId('background-run-state')).toHaveText(/^Running for \d+ s$/, { timeout: 15_000 });
  // Live like any run: its output streams into Live output.
  await expect(session.stdoutWith(`${marker} 1`)).toBeVisible({ timeout: 15_000 });
  await saveScreenshot(panel.page, testInfo, 'background-run');

  await row.getByRole('button', { name: 'Cancel' }).click();
  await expect(row.getByTestId('background-run-state')).toHaveText('Cancelled', { timeout: 20_000 });
  await expect(row.getByRole('button', { name: 'Cancel' })).toHaveCount(0);
  // The assistant sees the same end.
  const after = await assistant.client.callTool({ name: 'get_run', arguments: { run_id: runId } });
  expect(after.structuredContent).toMatchObject({ state: 'done', status: 'interrupted', cancel_requested: true });
});
