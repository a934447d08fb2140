/** A session's page shows what it uses now — processor, memory, workspace disk — as small graphs with numbers. */
import { uniqueName } from '../support/panel-api';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

test('a running session shows its CPU, memory and disk use, updated while the page is open', async ({ panel, assistants }, testInfo) => {
  const page = panel.page;
  const assistant = await assistants.connect(uniqueName('e2e-graphs'));
  const run = await assistant.run('data = bytearray(40 * 1024 * 1024)\nopen("/workspace/blob.bin", "wb").write(b"x" * 3_000_000)\nprint("made")');
  const sessions = await panel.sessions();
  const session = await sessions.open(run.session_id);
  const stats = session.stats;
  await expect(stats).toBeVisible();
  await expect(stats.getByTestId('stats-cpu-now')).toHaveText(/^\d+%$/);
  await expect(stats.getByTestId('stats-memory-now')).toHaveText(/\d+(\.\d)? MB$/);
  await expect(stats.getByTestId('stats-memory')).toContainText('of 512 MB');
  await expect(stats.getByTestId('stats-disk-now')).toHaveText(/\d+(\.\d)? MB$/);
  // It keeps measuring while the page is open: several samples make the line.
  await expect.poll(async () => Number(await stats.getAttribute('data-samples')), { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
  await expect(stats.locator('svg polyline').first()).toHaveAttribute('points', /,/);
  // Busy code shows as processor use.
  const busy = assistant.run('import time\nend = time.time() + 6\nwhile time.time() < end: pass\nprint("done")', { sessionId: run.session_id });
  await expect.poll(async () => Number((await stats.getByTestId('stats-cpu-now').innerText()).replace('%', '')), { timeout: 15_000 }).toBeGreaterThan(20);
  await saveScreenshot(page, testInfo, 'session-graphs');
  await busy;

  // Leaving the page stops the measuring.
  await panel.sessions();
  const calls: string[] = [];
  page.on('request', (request) => {
    if (request.url().endsWith('/api/sessions.stats')) calls.push(request.url());
  });
  await page.waitForTimeout(4_500);
  expect(calls, 'no measuring without the page').toEqual([]);
});
