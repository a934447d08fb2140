/** The web panel and its API refuse anyone without the token. */
import { PanelPage } from '../pages/panel-page';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

test.describe('access token', () => {
  test('the panel URL without #token= says to open the link with the token, and shows no data', async ({ page, server }, testInfo) => {
    const panel = new PanelPage(page);
    const refused: string[] = [];
    page.on('response', (response) => {
      if (response.url().includes('/api/') && response.status() === 401) refused.push(new URL(response.url()).pathname);
    });
    await panel.openRaw(`${server.url}/`);
    await expect(panel.app).toHaveAttribute('data-connection', 'unreachable');
    await expect(panel.unreachable).toHaveAttribute('data-access', 'missing');
    await expect(panel.unreachable).toContainText('Open Sandpit with its link');
    await expect(panel.unreachable).toContainText('#token=');
    await expect(panel.unreachable).toContainText('Copy link');
    await expect(page.getByTestId('sessions-screen')).toHaveCount(0);
    await expect(page.getByTestId('session-row')).toHaveCount(0);
    expect(refused.length, 'the panel asked the API and was refused').toBeGreaterThan(0);
    await saveScreenshot(page, testInfo, 'no-token');
  });

  test('a wrong token is refused the same way', async ({ page, server }) => {
    const panel = new PanelPage(page);
    await panel.openRaw(`${server.url}/#token=${'x'.repeat(43)}`);
    await expect(panel.app).toHaveAttribute('data-connection', 'unreachable');
    await expect(panel.unreachable).toHaveAttribute('data-access', 'invalid');
    await expect(panel.unreachable).toContainText('This link does not open Sandpit');
  });

  test('/api and /mcp answer 401 without a valid bearer; /api takes the panel token only', async ({ request, server }) => {
    const list = `${server.url}/api/sessions.list`;
    expect((await request.post(list, { data: {} })).status()).toBe(401);
    expect((await request.post(list, { data: {}, headers: { authorization: `Bearer ${'y'.repeat(43)}` } })).status()).toBe(401);
    const mcp = await request.post(`${server.url}/mcp`, {
      data: { jsonrpc: '2.0', id: 1, method: 'ping' },
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(mcp.status()).toBe(401);

    const asPanel = await request.post(list, { data: {}, headers: { authorization: `Bearer ${server.panelToken}` } });
    expect(asPanel.status()).toBe(200);
    expect(await asPanel.json()).toMatchObject({ ok: true });
    if (server.panelToken !== server.token) {
      // The clients' token (handed to every assistant) must not act as the person at the panel.
      const asClient = await request.post(list, { data: {}, headers: { authorization: `Bearer ${server.token}` } });
      expect(asClient.status()).toBe(403);
    }
  });
});
