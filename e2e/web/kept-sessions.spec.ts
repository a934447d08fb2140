/**
 * Kept sessions: a person keeps a session when starting it, Sandpit restarts (its own `sandpit serve` on the same
 * data folder), the session is listed as paused, and running code on its page resumes it with its file there
 * and a plain note that the variables are gone. Stopping it then removes it for good.
 */
import { PanelPage } from '../pages/panel-page';
import { SessionPage } from '../pages/session-page';
import { startOwnSandpit } from '../support/own-sandpit';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

test('a session kept in the panel survives a restart: listed as paused, resumed by a run with its files, saying variables are gone', async ({ page, server }, testInfo) => {
  const own = await startOwnSandpit(testInfo, server.pythonImage);
  try {
    const panel = new PanelPage(page);
    await panel.openWithToken(own.info.url, own.info.panelToken);
    const sessions = await panel.sessions();

    // Keep it when starting it.
    await page.getByTestId('session-new').click();
    await page.getByTestId('new-session-environment-python').check();
    await page.getByTestId('new-session-keep').check();
    await page.getByTestId('new-session-start').click();
    const root = page.getByTestId('session-page');
    await expect(root).toBeVisible({ timeout: 60_000 });
    const id = (await root.getAttribute('data-session-id'))!;
    const session = new SessionPage(page, id);
    await expect(session.root.getByTestId('session-keep')).toBeChecked();
    await session.runHere("open('/workspace/kept.txt', 'w').write('from before the restart')\ncounter = 41");

    // Sandpit restarts on the same data folder: the tab reconnects by itself.
    await own.stop();
    await expect(panel.linkLost).toBeVisible({ timeout: 15_000 });
    await own.start();
    await expect(panel.linkLost).toBeHidden({ timeout: 30_000 });

    await panel.go('sessions');
    const row = sessions.row(id);
    await expect(row.getByTestId('session-state')).toHaveText('Paused', { timeout: 20_000 });
    await expect(row.getByTestId('session-kept')).toHaveText('Kept');
    // Its one run before the restart still counts (it said "0 runs").
    await expect(row).toContainText('1 run ·');
    await saveScreenshot(page, testInfo, 'kept-session-paused');

    const again = await sessions.open(id);
    await expect(again.root.getByTestId('session-state')).toHaveText('Paused');
    await expect(again.root.getByTestId('session-paused-note')).toContainText('Running code resumes it');
    await expect(again.root.getByTestId('session-snapshot')).toBeDisabled();
    await expect(again.root.getByTestId('session-snapshot-blocked')).toHaveText(
      'Snapshot and Fork need the sandbox running: run code in this session to resume it, then take the snapshot.',
    );
    await again.runHere("print(open('/workspace/kept.txt').read())\nprint('counter' in globals())");
    await expect(again.stdoutWith('from before the restart')).toHaveCount(1);
    await expect(again.stdoutWith('False')).toHaveCount(1);
    await expect(again.console.getByTestId('console-note')).toContainText(
      'This session was resumed after Sandpit restarted: files and installed packages are here, variables from earlier runs are not',
    );
    await expect(again.root.getByTestId('session-state')).toHaveText('Ready');
    await expect(again.root.getByTestId('session-paused-note')).toHaveCount(0);
    await expect(again.root.getByTestId('session-snapshot')).toBeEnabled();
    await expect(again.root.getByTestId('session-snapshot-blocked')).toHaveCount(0);
    await saveScreenshot(page, testInfo, 'kept-session-resumed');

    // Stopped for good: gone from the list (dispose checks no container is left behind).
    await again.root.getByTestId('session-stop').click();
    await page.getByTestId('confirm-stop-confirm').click();
    await panel.go('sessions');
    await expect(sessions.row(id)).toHaveCount(0);
  } finally {
    await own.dispose();
  }
});

test('Settings → Idle sessions "Pause it": an idle session shows Paused live, and a run resumes it with its file', async ({ page, server }, testInfo) => {
  test.setTimeout(240_000);
  // One minute is the shortest idle time the setting takes: this spec waits it out once.
  const own = await startOwnSandpit(testInfo, server.pythonImage, { settings: { idleMinutes: 1, idleAction: 'pause' } });
  try {
    const panel = new PanelPage(page);
    await panel.openWithToken(own.info.url, own.info.panelToken);
    await panel.settings();
    await expect(page.getByTestId('settings-idle-minutes')).toHaveValue('1');
    await expect(page.getByTestId('settings-idle-action-pause')).toBeChecked();

    const sessions = await panel.sessions();
    await page.getByTestId('session-new').click();
    await page.getByTestId('new-session-environment-python').check();
    await page.getByTestId('new-session-start').click();
    const root = page.getByTestId('session-page');
    await expect(root).toBeVisible({ timeout: 60_000 });
    const id = (await root.getAttribute('data-session-id'))!;
    const session = new SessionPage(page, id);
    await session.runHere("open('/workspace/idle.txt', 'w').write('kept while paused')");

    // Nobody touches it: after a minute (and the next idle sweep) the page says Paused without a reload.
    await expect(session.root.getByTestId('session-state')).toHaveText('Paused', { timeout: 150_000 });
    await expect(session.root.getByTestId('session-paused-note')).toBeVisible();
    await session.runHere("print(open('/workspace/idle.txt').read())");
    await expect(session.stdoutWith('kept while paused')).toHaveCount(1);
    await expect(session.console.getByTestId('console-note')).toContainText('This session was paused after 1 minute without use');
    await expect(session.root.getByTestId('session-state')).toHaveText('Ready');

    await panel.go('sessions');
    await sessions.stop(id);
    await expect(sessions.row(id)).toHaveCount(0);
  } finally {
    await own.dispose();
  }
});
