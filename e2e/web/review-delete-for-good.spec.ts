/**
 * Issue 19: a file the session deleted goes to the computer's trash when it is applied; when no trash can take it
 * (here the trash folder cannot be made: XDG_DATA_HOME names a file), the panel says so, keeps the file, and
 * deletes it for good only when she clicks "Delete for good".
 */
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PanelPage } from '../pages/panel-page';
import { callApi, uniqueName } from '../support/panel-api';
import { startOwnSandpit } from '../support/own-sandpit';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

test('a deletion no trash can take is applied only after "Delete for good"', async ({ page, server }, testInfo) => {
  const home = await mkdtemp(join(tmpdir(), 'sandpit-e2e-no-trash-'));
  await chmod(home, 0o755);
  const sales = join(home, 'Documents', 'sales');
  await mkdir(sales, { recursive: true });
  await writeFile(join(sales, 'old-2025.csv'), 'region,total\nnorth,1\n');
  await writeFile(join(sales, 'sales.csv'), 'region,total\nnorth,10\n');
  // where the trash would be is a file: no trash folder can be made there
  const notAFolder = join(home, 'data-home');
  await writeFile(notAFolder, 'not a folder');
  const own = await startOwnSandpit(testInfo, server.pythonImage, { env: { XDG_DATA_HOME: notAFolder } });
  try {
    const created = (await callApi(own.info, 'sessions.create', { name: uniqueName('No trash') })) as { id: string };
    await callApi(own.info, 'sessions.addFolder', {
      sessionId: created.id,
      folder: { hostPath: sales, mode: 'review' },
    });
    await callApi(own.info, 'sessions.execute', {
      sessionId: created.id,
      code: "import os\nos.remove('/workspace/shared/sales/old-2025.csv')",
    });
    expect((await readdir(sales)).sort()).toEqual(['old-2025.csv', 'sales.csv']);

    const panel = new PanelPage(page);
    await panel.openWithToken(own.info.url, own.info.panelToken);
    await (await panel.sessions()).open(created.id);
    await page.getByTestId('session-tab-changes').click();
    const view = page.getByTestId('changes-view');
    const old = view.locator('[data-testid="change"][data-path="old-2025.csv"]');
    await expect(old.getByTestId('change-kind')).toHaveText('Deleted');
    // her folder is root's and only readable to the sandbox: it gets a copy, and the panel says why
    await expect(view.getByTestId('changes-backend')).toHaveText(
      `Your folder is only read: the session works on a copy of it (not an overlay: the sandbox's user could not change ${sales} under the folder's own permissions, so it is given a copy).`,
    );

    await old.getByTestId('change-apply').click();
    const message = view.getByTestId('changes-message');
    await expect(message).toContainText("old-2025.csv: Your computer's trash could not take it (ENOTDIR");
    await expect(message).toContainText('): confirm that the file is deleted for good.');
    await expect(view.getByTestId('changes-confirm-delete')).toHaveText(
      'No trash can take old-2025.csv: applied now, it is deleted from your folder for good. Delete for good',
    );
    // nothing deleted yet
    expect((await readdir(sales)).sort()).toEqual(['old-2025.csv', 'sales.csv']);
    await saveScreenshot(page, testInfo, 'changes-delete-for-good');

    await view.getByTestId('changes-delete-for-good').click();
    await expect(message).toHaveText('old-2025.csv: Deleted for good (you confirmed it).');
    await expect(view.getByTestId('changes-confirm-delete')).toHaveCount(0);
    await expect(view.getByTestId('changes-folder').locator('h3')).toHaveText(`${sales} — no changes waiting`);
    expect(await readdir(sales)).toEqual(['sales.csv']);
    await callApi(own.info, 'sessions.stop', { sessionId: created.id });
  } finally {
    await own.dispose();
    await rm(home, { recursive: true, force: true });
  }
});
