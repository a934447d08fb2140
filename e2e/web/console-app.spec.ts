/**
 * The console in the chat (issue 23, MCP Apps) in Chromium: a host page with the official AppBridge renders the app the
 * server serves (read by a real MCP client), and every result it shows comes from a real run on the e2e `sandpit serve`.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { uniqueName } from '../support/panel-api';
import { openAppHost, RENDERS_APPS } from '../support/mcp-app-host';
import { expect, test } from './fixtures';

const RUN_TIMEOUT = { timeout: 110_000 };

test('pandas tables and CSV files are sortable tables, beside the last line\'s value, in the host\'s colours and at the size the app asks for', async ({ page, assistants }) => {
  const assistant = await assistants.connect(uniqueName('e2e-console-tables'), { capabilities: RENDERS_APPS });
  const args = {
    code: [
      'import pandas as pd',
      "df = pd.DataFrame({'city': ['Oslo', 'Bergen', 'Tromsø'], 'sales': [12, 30, 7]})",
      'display(df)',
      "pd.DataFrame({'month': ['Jan', 'Feb', 'Mar'], 'visits': [120, 95, 143]}).to_csv('visits.csv', index=False)",
      'len(df)',
    ].join('\n'),
  };
  const result = (await assistant.client.callTool({ name: 'execute_code', arguments: args }, undefined, RUN_TIMEOUT)) as CallToolResult;
  expect(result.isError).toBeFalsy();
  const host = await openAppHost(page, assistant, 'execute_code', { theme: 'dark', variables: { '--color-background-primary': 'rgb(20, 30, 40)' } });
  await host.showCall(args, result);
  const app = host.frame;

  await expect(app.locator('p.status')).toContainText('ok in');
  await expect(app.locator('p.value')).toHaveText('Value: 3');
  const shown = app.locator('table', { has: app.locator('caption', { hasText: 'Shown by the run' }) });
  await expect(shown.locator('tbody tr td:nth-child(2)')).toHaveText(['Oslo', 'Bergen', 'Tromsø']);
  await shown.getByRole('columnheader', { name: 'sales' }).click();
  await expect(shown.locator('tbody tr td:nth-child(2)')).toHaveText(['Tromsø', 'Oslo', 'Bergen']);
  await expect(shown.getByRole('columnheader', { name: 'sales' })).toHaveAttribute('aria-sort', 'ascending');
  await shown.getByRole('columnheader', { name: 'sales' }).click();
  await expect(shown.locator('tbody tr td:nth-child(2)')).toHaveText(['Bergen', 'Oslo', 'Tromsø']);
  await expect(shown.getByRole('columnheader', { name: 'sales' })).toHaveAttribute('aria-sort', 'descending');

  const file = app.locator('table', { has: app.locator('caption', { hasText: 'visits.csv' }) });
  await expect(file.locator('tbody tr td:first-child')).toHaveText(['Jan', 'Feb', 'Mar']);
  await file.getByRole('columnheader', { name: 'visits' }).click();
  await file.getByRole('columnheader', { name: 'visits' }).click();
  await expect(file.locator('tbody tr td:first-child')).toHaveText(['Mar', 'Jan', 'Feb']);

  // The host's look: dark, with its own background colour; then a change of look while the app is open.
  await expect(app.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expect(app.locator('body')).toHaveCSS('background-color', 'rgb(20, 30, 40)');
  await host.setLook({ theme: 'light', variables: { '--color-background-primary': 'rgb(250, 240, 230)' } });
  await expect(app.locator('html')).toHaveAttribute('data-theme', 'light');
  await expect(app.locator('body')).toHaveCSS('background-color', 'rgb(250, 240, 230)');

  // Its size: it told the host how tall it is, and the host's frame follows (it started 120 px tall).
  await expect.poll(async () => Math.max(0, ...(await host.heights()))).toBeGreaterThan(200);
  const last = (await host.heights()).at(-1)!;
  await expect(page.locator('#app')).toHaveCSS('height', `${last}px`);

  // A client that does not render MCP Apps gets the text and pictures only: no tables in the result's _meta.
  const plain = await assistants.connect(uniqueName('e2e-console-plain'));
  const plainResult = (await plain.client.callTool({ name: 'execute_code', arguments: args }, undefined, RUN_TIMEOUT)) as CallToolResult;
  expect(plainResult.isError).toBeFalsy();
  expect(plainResult._meta?.['dev.sandpit/tables']).toBeUndefined();
  expect(result._meta?.['dev.sandpit/tables']).toHaveLength(2);
});

test('a background run\'s output grows live in the console, then its result shows', async ({ page, assistants }) => {
  const assistant = await assistants.connect(uniqueName('e2e-console-live'), { capabilities: RENDERS_APPS });
  const args = { background: true, code: 'import time\nfor i in range(6):\n    print("tick", i, flush=True)\n    time.sleep(1)\n"finished"' };
  const started = (await assistant.client.callTool({ name: 'execute_code', arguments: args }, undefined, RUN_TIMEOUT)) as CallToolResult;
  expect(started.structuredContent?.run_id).toMatch(/^run-/);
  const host = await openAppHost(page, assistant, 'execute_code');
  await host.showCall(args, started);
  const live = host.frame.locator('pre.live');
  await expect(live).toContainText('tick 1', { timeout: 20_000 });
  await expect(live).toContainText('tick 4', { timeout: 20_000 });
  // The app asked get_run itself (through the host) until the run ended.
  await expect(host.frame.locator('p.value')).toHaveText("Value: 'finished'", { timeout: 30_000 });
  await expect(host.frame.locator('p.status')).toContainText('ok in');
});

test('a run\'s picture, its CSV output as a table, and a command\'s exit code', async ({ page, assistants }) => {
  const assistant = await assistants.connect(uniqueName('e2e-console-picture'), { capabilities: RENDERS_APPS });
  const args = { code: 'import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.show()\nprint("city,sales\\nOslo,12\\nBergen,30")' };
  const result = (await assistant.client.callTool({ name: 'execute_code', arguments: args }, undefined, RUN_TIMEOUT)) as CallToolResult;
  expect(result.isError).toBeFalsy();
  const host = await openAppHost(page, assistant, 'execute_code');
  await host.showCall(args, result);
  const app = host.frame;
  await expect(app.getByRole('img', { name: 'picture from the run' })).toBeVisible();
  await expect(app.locator('tbody tr td:first-child')).toHaveText(['Oslo', 'Bergen']);
  await app.getByRole('columnheader', { name: 'sales' }).click();
  await app.getByRole('columnheader', { name: 'sales' }).click();
  await expect(app.locator('tbody tr td:first-child')).toHaveText(['Bergen', 'Oslo']);

  const commandArgs = { command: 'echo made it; exit 3', session_id: result.structuredContent?.session_id };
  const command = (await assistant.client.callTool({ name: 'run_command', arguments: commandArgs }, undefined, RUN_TIMEOUT)) as CallToolResult;
  await host.showCall(commandArgs, command);
  await expect(app.locator('p.status')).toContainText('exit code 3 in');
  await expect(app.locator('pre').first()).toHaveText(/^made it\s*$/);
});

test('markup a run shows inside a table is shown as text, never run', async ({ page, assistants }) => {
  const assistant = await assistants.connect(uniqueName('e2e-console-attack'), { capabilities: RENDERS_APPS });
  // Inline handlers are allowed by the app's policy ('unsafe-inline'), and an image refused by it fires onerror:
  // had the console put this markup into its page, the body would say so.
  const args = {
    code: [
      'class Sneaky:',
      '    def _repr_html_(self):',
      '        return \'<table><tr><th>name</th></tr><tr><td>safe<img src=x onerror="document.body.dataset.owned=1"><script>document.body.dataset.owned=2</script></td></tr></table>\'',
      'display(Sneaky())',
    ].join('\n'),
  };
  const result = (await assistant.client.callTool({ name: 'execute_code', arguments: args }, undefined, RUN_TIMEOUT)) as CallToolResult;
  expect(result.isError).toBeFalsy();
  const host = await openAppHost(page, assistant, 'execute_code');
  await host.showCall(args, result);
  const app = host.frame;
  await expect(app.locator('tbody td')).toHaveText(['safe']);
  await expect(app.locator('table img')).toHaveCount(0);
  await expect(app.locator('body')).not.toHaveAttribute('data-owned', /.*/);
});
