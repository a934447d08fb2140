import { expect, test } from '@playwright/test';
import { CONSOLE_APP_HTML } from '../../src/core/mcp/console-app';
import { uniqueName } from '../support/panel-api';
import { test as realTest } from './fixtures';

/** A 1x1 PNG, as a run's image content would carry it. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

// The host side of MCP Apps in a small page: answers ui/initialize, then sends a tool result with output, a CSV table, a picture.
// This first tool result is written by the test; the second test below uses a real run from `sandpit serve`.
test('the console shows a run\'s output, its picture, and a table sorted by a click on a column header', async ({ page }) => {
  await page.setContent('<iframe id="app" style="width:600px;height:400px"></iframe>');
  await page.evaluate(({ html, png }) => {
    const frame = document.getElementById('app') as HTMLIFrameElement;
    addEventListener('message', (ev: MessageEvent) => {
      const m = ev.data as { id?: number; method?: string };
      if (m.method !== 'ui/initialize') return;
      frame.contentWindow!.postMessage({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-21', hostCapabilities: {} } }, '*');
      frame.contentWindow!.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: {
        content: [{ type: 'text', text: 'hello from the box' }, { type: 'text', text: 'name,age\nzoe,31\nann,4\nbob,12' }, { type: 'image', mimeType: 'image/png', data: png }],
        structuredContent: { exit_code: 0 },
      } }, '*');
    });
    frame.srcdoc = html;
  }, { html: CONSOLE_APP_HTML, png: PNG });
  const app = page.frameLocator('#app');
  await expect(app.getByText('hello from the box')).toBeVisible();
  await expect(app.getByRole('img', { name: 'picture from the run' })).toBeVisible();
  await app.getByRole('columnheader', { name: 'age' }).click();
  await expect(app.locator('tbody tr td:first-child')).toHaveText(['ann', 'bob', 'zoe']);
});

// A real background run from the e2e `sandpit serve`: the host forwards the app's tools/call (get_run) to a real MCP client.
realTest('the console shows a real background run\'s output growing live', async ({ page, assistants }) => {
  const assistant = await assistants.connect(uniqueName('e2e-console'));
  const first = await assistant.run('print("warming up")');
  const started = await assistant.client.callTool({
    name: 'execute_code',
    arguments: { session_id: first.session_id, background: true, code: 'import time\nfor i in range(6):\n    print("tick", i, flush=True)\n    time.sleep(1)' },
  });
  await page.exposeFunction('callTool', (name: string, args: Record<string, unknown>) => assistant.client.callTool({ name, arguments: args }));
  await page.setContent('<iframe id="app" style="width:600px;height:400px"></iframe>');
  await page.evaluate(({ html, result }) => {
    const frame = document.getElementById('app') as HTMLIFrameElement;
    const reply = (msg: unknown): void => frame.contentWindow!.postMessage(msg, '*');
    addEventListener('message', (ev: MessageEvent) => {
      const m = ev.data as { id?: number; method?: string; params?: { name: string; arguments: Record<string, unknown> } };
      if (m.method === 'ui/initialize') {
        reply({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-21', hostCapabilities: {} } });
        reply({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: result });
      } else if (m.method === 'tools/call' && m.params) {
        const call = (window as unknown as { callTool: (n: string, a: unknown) => Promise<unknown> }).callTool;
        void call(m.params.name, m.params.arguments).then((r) => reply({ jsonrpc: '2.0', id: m.id, result: r }));
      }
    });
    frame.srcdoc = html;
  }, { html: CONSOLE_APP_HTML, result: started });
  const live = page.frameLocator('#app').locator('pre.live');
  await expect(live).toContainText('tick 1', { timeout: 20_000 });
  await expect(live).toContainText('tick 4', { timeout: 20_000 });
});

// A real foreground run: the console shows its status, its CSV output as a table, and the last line's value on its own.
realTest('the console shows a real run\'s CSV output as a table and the value of its last line', async ({ page, assistants }) => {
  const assistant = await assistants.connect(uniqueName('e2e-console-value'));
  const result = await assistant.client.callTool({ name: 'execute_code', arguments: { code: 'print("city,sales\\nOslo,12\\nBergen,30")\n6 * 7' } });
  await page.setContent('<iframe id="app" style="width:600px;height:400px"></iframe>');
  await page.evaluate(({ html, result: sent }) => {
    const frame = document.getElementById('app') as HTMLIFrameElement;
    addEventListener('message', (ev: MessageEvent) => {
      const m = ev.data as { id?: number; method?: string };
      if (m.method !== 'ui/initialize') return;
      frame.contentWindow!.postMessage({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-21', hostCapabilities: {} } }, '*');
      frame.contentWindow!.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: sent }, '*');
    });
    frame.srcdoc = html;
  }, { html: CONSOLE_APP_HTML, result });
  const app = page.frameLocator('#app');
  await expect(app.locator('p.status')).toContainText('ok in');
  await expect(app.locator('p.value')).toHaveText('Value: 42');
  await expect(app.locator('tbody tr td:first-child')).toHaveText(['Oslo', 'Bergen']);
  await app.getByRole('columnheader', { name: 'sales' }).click();
  await app.getByRole('columnheader', { name: 'sales' }).click();
  await expect(app.locator('tbody tr td:first-child')).toHaveText(['Bergen', 'Oslo']);
});
