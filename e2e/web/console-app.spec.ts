import { expect, test } from '@playwright/test';
import { CONSOLE_APP_HTML } from '../../src/core/mcp/console-app';

/** A 1x1 PNG, as a run's image content would carry it. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

// The host side of MCP Apps in a small page: answers ui/initialize, then sends a tool result with output, a CSV table, a picture.
// The tool result here is written by the test, not taken from a real `sandpit serve` (see /tmp/notes/23c.md: left).
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
