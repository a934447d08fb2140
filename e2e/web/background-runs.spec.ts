import { expect } from '@playwright/test';
import { callApi, uniqueName } from '../support/panel-api';
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

test('Activity marks a background run\'s row "Background" and its detail names the run; a foreground row has no mark', async ({ panel, assistants }) => {
  const assistant = await assistants.connect(uniqueName('e2e-background-activity'));
  const marker = uniqueName('bgrow');
  const started = await assistant.client.callTool({ name: 'run_command', arguments: { command: `echo ${marker}-background`, background: true } });
  const runId = (started.structuredContent as { run_id: string }).run_id;
  await expect
    .poll(async () => ((await assistant.client.callTool({ name: 'get_run', arguments: { run_id: runId, wait_seconds: 5 } })).structuredContent as { state: string }).state, { timeout: 60_000 })
    .toBe('done');
  await assistant.client.callTool({ name: 'run_command', arguments: { command: `echo ${marker}-foreground` } });

  const activity = await panel.activity();
  await activity.search(marker);
  const background = activity.rowsWith(`${marker}-background`);
  const foreground = activity.rowsWith(`${marker}-foreground`);
  await expect(background.getByTestId('activity-row-background')).toHaveText('Background ·');
  await expect(foreground).toHaveCount(1);
  await expect(foreground.getByTestId('activity-row-background')).toHaveCount(0);
  const detail = await activity.openRow(background);
  await expect(detail.getByTestId('activity-detail-background')).toHaveText(
    `Ran in the background as ${runId}: the call that started it returned at once, and the assistant fetches the result with get_run`,
  );
});

test('Settings: "Longest background run (minutes)" refuses a value out of range next to the field, and a saved value caps what an assistant may ask for', async ({ panel, server, assistants }) => {
  const page = panel.page;
  const before = (await callApi(server, 'settings.get')) as { backgroundRunMaxMinutes?: number };
  const settings = await panel.settings();
  const field = page.getByLabel('Longest background run (minutes)');
  await expect(field).toHaveValue(String(before.backgroundRunMaxMinutes ?? 60));
  try {
    for (const wrong of ['0', '1441', 'an hour']) {
      await field.fill(wrong);
      await settings.saveRefused();
      await expect(page.getByTestId('settings-background-max-error')).toHaveText('The longest background run must be a whole number of minutes, from 1 to 1440 (a day).');
    }
    expect(((await callApi(server, 'settings.get')) as { backgroundRunMaxMinutes?: number }).backgroundRunMaxMinutes).toBe(before.backgroundRunMaxMinutes);
    await field.fill('30');
    await settings.save();
    await expect(settings.saveBar).toContainText('Saved');
    expect(((await callApi(server, 'settings.get')) as { backgroundRunMaxMinutes?: number }).backgroundRunMaxMinutes).toBe(30);

    // What the assistant reads when it asks for more; less is fine.
    const assistant = await assistants.connect(uniqueName('e2e-background-cap'));
    const refused = await assistant.client.callTool({ name: 'execute_code', arguments: { code: '1', background: true, timeout_seconds: 45 * 60 } });
    expect(refused.isError).toBe(true);
    expect((refused.content as Array<{ text: string }>)[0]?.text).toBe(
      'INVALID_INPUT: A background run may take at most 30 minutes (the "Longest background run" in Settings). Ask for less time, or ask the person to raise that setting.',
    );
    const allowed = await assistant.client.callTool({ name: 'execute_code', arguments: { code: '1', background: true, timeout_seconds: 20 * 60 } });
    expect(allowed.isError ?? false).toBe(false);
    expect((allowed.structuredContent as { run_id?: string }).run_id).toMatch(/^run-/);
  } finally {
    await callApi(server, 'settings.update', { patch: { backgroundRunMaxMinutes: before.backgroundRunMaxMinutes ?? null } });
  }
});
