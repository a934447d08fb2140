import { SessionPage } from '../pages/session-page';
import { callApi, uniqueName } from '../support/panel-api';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

test('a snapshot taken on the session page appears in Snapshots with its size; a fork has the file; delete asks first', async ({ panel, server, page }, testInfo) => {
  const source = (await callApi(server, 'sessions.create', {})) as { id: string };
  const forks: string[] = [];
  try {
    await callApi(server, 'files.write', { sessionId: source.id, path: 'notes/kept.txt', content: 'words to keep\n'.repeat(200) });
    const sessions = await panel.sessions();
    const sessionPage = await sessions.open(source.id);

    // Snapshot, with a name of our own.
    const name = uniqueName('before-trying');
    await sessionPage.root.getByTestId('session-snapshot').click();
    const dialog = page.getByTestId('snapshot-dialog');
    await expect(dialog).toBeVisible();
    await dialog.getByTestId('snapshot-dialog-name').fill(name);
    await dialog.getByTestId('snapshot-dialog-confirm').click();
    await expect(page.getByTestId('snapshot-done-text')).toContainText(`“${name}” holds 1 file`);
    await page.getByTestId('snapshot-done-open').click();

    // In the list: its name, its size in words, when it was taken.
    const snapshots = panel.page.getByTestId('snapshots-screen');
    await expect(snapshots).toBeVisible();
    const row = page.getByTestId('snapshot-row').filter({ hasText: name });
    await expect(row).toHaveCount(1);
    await expect(row.getByTestId('snapshot-size')).toHaveText(/^\d+(\.\d)? KB$/);
    await expect(row.getByTestId('snapshot-time')).toHaveText('just now');
    await expect(row.getByTestId('snapshot-facts')).toContainText('1 file');
    await saveScreenshot(page, testInfo, 'snapshots-list');

    // Fork from the session page: the new session's page opens and has the file.
    const again = await (await panel.sessions()).open(source.id);
    await again.root.getByTestId('session-fork').click();
    const fork = page.getByTestId('fork-dialog');
    await expect(fork).toBeVisible();
    await saveScreenshot(page, testInfo, 'fork-dialog', { area: 'viewport' });
    await fork.getByTestId('fork-dialog-confirm').click();
    await expect(fork).toBeHidden({ timeout: 60_000 });
    const opened = page.locator('[data-testid="session-page"]');
    await expect(opened).not.toHaveAttribute('data-session-id', source.id);
    const forkId = (await opened.getAttribute('data-session-id')) ?? '';
    forks.push(forkId);
    await expect(page.getByTestId('session-title')).toContainText('Fork of');
    const forkPage = new SessionPage(page, forkId);
    const files = await forkPage.files();
    await expect(files.filter({ hasText: 'notes' })).toHaveCount(1);
    expect(((await callApi(server, 'files.read', { sessionId: forkId, path: 'notes/kept.txt' })) as { content: string }).content).toBe('words to keep\n'.repeat(200));

    // Delete asks first; "Cancel" keeps it, "Delete" removes it from the list.
    const list = await panel.snapshots();
    await list.delete(name, false);
    await expect(list.row(name)).toHaveCount(1);
    await list.delete(name, true);
    await expect(list.row(name)).toHaveCount(0);
    const left = (await callApi(server, 'snapshots.list', {})) as { snapshots: Array<{ name: string }> };
    expect(left.snapshots.map((s) => s.name)).not.toContain(name);
  } finally {
    for (const id of [source.id, ...forks]) await callApi(server, 'sessions.stop', { sessionId: id }).catch(() => undefined);
  }
});
