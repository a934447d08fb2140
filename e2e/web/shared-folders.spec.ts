/**
 * A person shares a folder of this computer with a session in the browser panel by typing its path: the
 * session shows it, a run reads a file from it (its Activity row names the folder and its mode), an
 * assistant sees it in list_sessions; a refused path
 * (a system folder, the home folder) shows its reason in plain words and shares nothing.
 */
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { callApi, uniqueName } from '../support/panel-api';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

test('share a folder by typing its path, read a file from it in a run; a refused path says why', async ({ panel, server, assistants }, testInfo) => {
  const folder = await mkdtemp(join(tmpdir(), 'sandpit-e2e-share-'));
  await chmod(folder, 0o755);
  await writeFile(join(folder, 'data.csv'), 'city,people\nLyon,522969\n');
  await chmod(join(folder, 'data.csv'), 0o644);
  try {
    const created = (await callApi(server, 'sessions.create', { name: uniqueName('Shared') })) as { id: string };
    const sessions = await panel.sessions();
    const session = await sessions.open(created.id);
    await session.root.getByTestId('session-tab-folders').click();
    const card = session.root.getByTestId('shared-folders');
    await expect(card.getByTestId('shared-folders-empty')).toBeVisible();

    // Refused, with the reason, before anything restarts.
    for (const [path, reason] of [
      ['/etc', /\/etc is a system folder/],
      [homedir(), /is your home folder/],
    ] as const) {
      await card.getByTestId('share-folder-path').fill(path);
      await card.getByTestId('share-folder-submit').click();
      await expect(card.getByTestId('share-folder-error')).toHaveText(reason);
      await expect(card.getByTestId('shared-folder')).toHaveCount(0);
    }

    // Shared read-only (the default) by its typed path.
    await card.getByTestId('share-folder-path').fill(folder);
    await card.getByTestId('share-folder-submit').click();
    await expect(card.getByTestId('share-folder-done')).toContainText('Shared', { timeout: 60_000 });
    const row = card.getByTestId('shared-folder');
    await expect(row).toHaveCount(1);
    const name = folder.split('/').pop() ?? '';
    await expect(row).toHaveAttribute('data-mount-path', `/workspace/shared/${name}`);
    await expect(row).toHaveAttribute('data-mode', 'ro');
    await expect(row.getByTestId('shared-folder-host')).toHaveText(folder);
    await expect(session.root.getByTestId('session-state')).toHaveAttribute('data-state', 'ready', { timeout: 60_000 });

    // The list says the session has a folder of this computer.
    await expect((await panel.sessions()).row(created.id).getByTestId('session-folders')).toHaveText('1 folder of this computer');
    await (await panel.sessions()).open(created.id);
    await expect(session.root.getByTestId('session-state')).toHaveAttribute('data-state', 'ready');

    // A run reads a file from it.
    await session.runHere(`print(open('/workspace/shared/${name}/data.csv').read().splitlines()[1])`);
    await expect(session.stdoutWith('Lyon,522969')).toHaveCount(1);
    await saveScreenshot(panel.page, testInfo, 'session-shared-folders');

    // An assistant sees it (where and how), and has no way to add one.
    const assistant = await assistants.connect(uniqueName('e2e-folders'));
    const listed = (await assistant.client.callTool({ name: 'list_sessions', arguments: {} })) as CallToolResult;
    const mine = (listed.structuredContent as { sessions: Array<{ session_id: string; shared_folders: unknown }> }).sessions.find((s) => s.session_id === created.id);
    expect(mine?.shared_folders).toEqual([{ path: `/workspace/shared/${name}`, name, mode: 'ro' }]);
    const { tools } = await assistant.client.listTools();
    expect(tools.map((t) => t.name).filter((n) => /folder|share|mount/i.test(n))).toEqual([]);

    // The run's audit row names the folder and its mode.
    const activity = await panel.activity();
    await activity.search(`shared/${name}/data.csv`);
    const detail = await activity.openRow(activity.rowsWith('data.csv').first());
    await expect(detail.getByTestId('activity-detail-folder')).toHaveText(`${folder} at /workspace/shared/${name} — read-only`);

    await callApi(server, 'sessions.stop', { sessionId: created.id });
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
});
