/**
 * The data analyst's flow (issue 19): she shares her sales folder with "Changes need my OK"; the assistant
 * (a real MCP client) cleans the CSV and adds a chart; nothing reaches her folder; the Changes tab shows the
 * count, the CSV's diff side by side and the new picture; she applies the CSV and discards the chart; her
 * folder then holds exactly that.
 */
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { callApi, uniqueName } from '../support/panel-api';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

const DIRTY = 'region,total\nnorth , 10\nsouth,20 \n';
const CLEAN = 'region,total\nnorth,10\nsouth,20\n';
const PNG_HEX =
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f8cfc0f01f0005000201a3a5b6a10000000049454e44ae426082';

test('share a folder with "Changes need my OK", review the assistant\'s changes, apply one and discard the other', async ({
  panel,
  server,
  assistants,
}, testInfo) => {
  const home = await mkdtemp(join(tmpdir(), 'sandpit-e2e-analyst-'));
  const sales = join(home, 'Documents', 'sales');
  await mkdir(sales, { recursive: true });
  await chmod(home, 0o755);
  await writeFile(join(sales, 'sales.csv'), DIRTY);
  try {
    const created = (await callApi(server, 'sessions.create', { name: uniqueName('Analyst') })) as { id: string };
    const session = await (await panel.sessions()).open(created.id);
    await session.root.getByTestId('session-tab-folders').click();
    const card = session.root.getByTestId('shared-folders');
    await card.getByTestId('share-folder-path').fill(sales);
    await card.getByTestId('share-folder-mode-review').check();
    await card.getByTestId('share-folder-submit').click();
    await expect(card.getByTestId('share-folder-done')).toContainText('Shared', { timeout: 60_000 });
    await expect(card.getByTestId('shared-folder')).toHaveAttribute('data-mode', 'review');
    await expect(card.getByTestId('shared-folder')).toContainText('Changes need my OK');
    await expect(session.root.getByTestId('session-state')).toHaveAttribute('data-state', 'ready', { timeout: 60_000 });

    // The assistant cleans the CSV and adds a chart, through the real MCP client.
    const assistant = await assistants.connect(uniqueName('e2e-analyst'));
    const code = [
      "p = '/workspace/shared/sales/sales.csv'",
      "rows = [','.join(c.strip() for c in line.split(',')) for line in open(p).read().splitlines()]",
      "open(p, 'w').write('\\n'.join(rows) + '\\n')",
      `open('/workspace/shared/sales/chart.png', 'wb').write(bytes.fromhex('${PNG_HEX}'))`,
    ].join('\n');
    const ran = (await assistant.client.callTool({
      name: 'execute_code',
      arguments: { session_id: created.id, code },
    })) as CallToolResult;
    expect((ran.content[0] as { text: string }).text).toContain(
      "2 changes in /workspace/shared/sales wait for the person's OK in Sandpit: they are not in the person's folder until the person applies them (list_changes shows them).",
    );
    expect(await readFile(join(sales, 'sales.csv'), 'utf8')).toBe(DIRTY);
    expect(await readdir(sales)).toEqual(['sales.csv']);

    // The count on the session list; stopping asks first and says the changes would be discarded.
    const list = await panel.sessions();
    const row = list.row(created.id);
    await expect(row.getByTestId('session-row-pending-changes')).toHaveText('2 changes waiting', { timeout: 30_000 });
    await row.getByTestId('session-stop').click();
    await expect(panel.page.getByTestId('confirm-stop-pending')).toHaveText(
      '2 changes to your folders are still waiting for your OK: stopping the session discards them. To keep any, apply them first (the session’s Changes tab).',
    );
    await panel.page.getByTestId('confirm-stop-close').click();
    await list.open(created.id);

    // The Changes tab: the count, the CSV side by side, the new picture.
    await expect(session.root.getByTestId('session-pending-changes')).toHaveText('2 waiting', { timeout: 30_000 });
    await session.root.getByTestId('session-tab-changes').click();
    const view = session.root.getByTestId('changes-view');
    await expect(view.getByTestId('changes-folder').locator('h3')).toHaveText(
      `${sales} — 2 changes waiting for your OK`,
    );
    const csv = view.locator('[data-testid="change"][data-path="sales.csv"]');
    const chart = view.locator('[data-testid="change"][data-path="chart.png"]');
    await expect(csv.getByTestId('change-kind')).toHaveText('Changed');
    await expect(chart.getByTestId('change-kind')).toHaveText('New file');
    await expect(chart.getByTestId('change-size')).toHaveText('70 bytes');
    await csv.getByTestId('change-show').click();
    const changed = csv.locator('[data-testid="diff-row"][data-kind="changed"]');
    await expect(changed).toHaveCount(2);
    // only spaces changed: they are shown
    await expect(csv.getByTestId('change-whitespace-only')).toHaveText(
      'Only spaces, tabs or line ends differ: they are shown as · and →.',
    );
    await expect(changed.first().getByTestId('diff-left')).toHaveText('north·,·10');
    await expect(changed.first().getByTestId('diff-right')).toHaveText('north,10');
    await chart.getByTestId('change-show').click();
    await expect(chart.getByTestId('change-image-after')).toBeVisible();
    await saveScreenshot(panel.page, testInfo, 'session-changes');

    // She applies the CSV and discards the chart.
    await csv.getByTestId('change-apply').click();
    await expect(view.getByTestId('changes-message')).toHaveText(
      "sales.csv: Applied: your file now has the session's version.",
    );
    await chart.getByTestId('change-discard').click();
    await expect(view.getByTestId('changes-message')).toHaveText(
      'chart.png: Discarded: the session now has your version.',
    );
    await expect(view.getByTestId('changes-folder').locator('h3')).toHaveText(`${sales} — no changes waiting`);
    expect(await readFile(join(sales, 'sales.csv'), 'utf8')).toBe(CLEAN);
    expect(await readdir(sales)).toEqual(['sales.csv']);

    await callApi(server, 'sessions.stop', { sessionId: created.id });
  } finally {
    await rm(home, { recursive: true, force: true });
  }
});
