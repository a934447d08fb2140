/**
 * Issue 21, "What is said must be true" #9: a replay of a session that had a shared folder reported
 * "0 same, 4 different" with FileNotFoundError and no word why. It now says the folder was not there.
 */
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callApi, uniqueName } from '../support/panel-api';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

test('a replay of a session that had a shared folder says the folder was not there, on the replay and on the runs that read it', async ({ panel, server }, testInfo) => {
  const folder = await mkdtemp(join(tmpdir(), 'sandpit-e2e-replay-share-'));
  await chmod(folder, 0o755);
  await writeFile(join(folder, 'data.csv'), 'city,people\nLyon,522969\n');
  await chmod(join(folder, 'data.csv'), 0o644);
  try {
    const created = (await callApi(server, 'sessions.create', { name: uniqueName('Replayed share') })) as { id: string };
    const shared = (await callApi(server, 'sessions.addFolder', { sessionId: created.id, folder: { hostPath: folder, mode: 'ro' } })) as {
      folders: Array<{ mountPath: string }>;
    };
    const mountPath = shared.folders[0]!.mountPath;
    const read = (await callApi(server, 'sessions.execute', { sessionId: created.id, code: `print(open("${mountPath}/data.csv").read())` })) as { stdout: string };
    expect(read.stdout).toContain('Lyon');
    await callApi(server, 'sessions.execute', { sessionId: created.id, code: 'print(6 * 7)' });

    const activity = await panel.activity();
    await panel.page.getByTestId('filter-session').selectOption(created.id);
    await expect(activity.rows).toHaveCount(2);
    await panel.page.getByTestId('activity-session-bar').getByTestId('activity-replay').click();
    const replay = panel.page.getByTestId('replay-panel');
    await expect(replay).toHaveAttribute('data-state', 'done', { timeout: 90_000 });
    await expect(replay.getByTestId('replay-state')).toContainText('1 same, 1 different');
    await expect(replay.getByTestId('replay-missing-folders')).toContainText(`The original session had the folder ${folder} at ${mountPath} (read-only); this replay ran without it`);
    const reader = replay.getByTestId('replay-run').first();
    await expect(reader).toHaveAttribute('data-outcome', 'differs');
    await expect(reader).toContainText(`The original had the folder ${folder} at ${mountPath}; the replay did not, so what reads it differs.`);
    await saveScreenshot(panel.page, testInfo, 'replay-missing-folder');
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
});
