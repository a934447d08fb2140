/**
 * #2 and #3: the panel link survives a restart of Sandpit on the same data folder; while Sandpit is gone the
 * panel says so within seconds (heartbeat) and claims nothing about Docker or sessions, then reconnects by
 * itself; a new link replaces the old one at once, the old tab says what happened and takes the new link
 * pasted into its address bar without a reload.
 */
import { PanelPage } from '../pages/panel-page';
import { ConnectPage } from '../pages/connect-page';
import { startFreezableProxy } from '../support/freezable-proxy';
import { connectAssistant } from '../support/mcp';
import { startOwnSandpit } from '../support/own-sandpit';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

/** A mark on the page's window: still there later means the page was not reloaded. */
async function markWindow(panel: PanelPage): Promise<void> {
  await panel.page.evaluate(() => Object.assign(window, { e2eNotReloaded: true }));
}
function stillSamePage(panel: PanelPage): Promise<boolean> {
  return panel.page.evaluate(() => (window as unknown as { e2eNotReloaded?: boolean }).e2eNotReloaded === true);
}

test('the link Connect copies has its token and survives a restart; while Sandpit is stopped the panel says so, then reconnects by itself', async ({ page, server }, testInfo) => {
  const own = await startOwnSandpit(testInfo, server.pythonImage);
  try {
    const panel = new PanelPage(page);
    await panel.openWithToken(own.info.url, own.info.panelToken);
    const link = `${own.info.url}/#token=${own.info.panelToken}`;
    const connect = await panel.connect();
    expect(await connect.panelLink()).toBe(link);

    // An assistant's session is "Ready" while Sandpit runs (the assistant stays connected: closing it would end its session).
    const assistant = await connectAssistant(own.info, 'Claude Desktop');
    const run = await assistant.run('print(1)');
    const sessions = await panel.sessions();
    await expect(sessions.row(run.session_id).getByTestId('session-state')).toHaveText('Ready');
    await markWindow(panel);

    // Sandpit stops: within a few seconds the panel says it lost Sandpit, and says nothing about Docker or sessions.
    const stoppedAt = Date.now();
    await own.stop();
    await expect(panel.linkLost).toBeVisible({ timeout: 15_000 });
    const noticedAfter = Date.now() - stoppedAt;
    expect(noticedAfter, 'the panel noticed within ~10 s (8 s of silence)').toBeLessThan(14_000);
    await expect(panel.linkLost).toContainText('Lost the connection to Sandpit — reconnecting…');
    await expect(panel.engineStatus).toHaveAttribute('data-state', 'lost');
    await expect(page.getByTestId('status-bar')).not.toContainText('Docker is running');
    await expect(page.getByTestId('status-bar')).not.toContainText('assistant');
    await expect(sessions.row(run.session_id).getByTestId('session-state')).toHaveText('Unknown');
    await expect(page.getByTestId('session-new')).toBeDisabled();
    await saveScreenshot(page, testInfo, 'link-lost');
    testInfo.annotations.push({ type: 'note', description: `the panel noticed the stop after ${noticedAfter} ms` });

    // Sandpit starts again on the same data folder: the same tab comes back by itself, with what is true now.
    await own.start();
    await expect(panel.linkLost).toBeHidden({ timeout: 20_000 });
    await expect(panel.engineStatus).toHaveAttribute('data-state', 'up');
    await expect(sessions.row(run.session_id)).toHaveCount(0);
    expect(await stillSamePage(panel), 'no reload was needed').toBe(true);
    expect(own.info.panelToken, 'the panel token lives in the data folder').toBe(link.split('#token=')[1]);

    // The old link opens the panel in a new tab too.
    const again = new PanelPage(await page.context().newPage());
    await again.openWithToken(own.info.url, link.split('#token=')[1]!);
    await again.page.close();
    await assistant.close();
  } finally {
    await own.dispose();
  }
});

test('a new panel link replaces the old one at once; the old tab says so and takes the new link pasted into it, without a reload', async ({ panel, server }, testInfo) => {
  const page = panel.page;
  const oldToken = server.panelToken;
  await markWindow(panel);

  // Another tab makes a new link on Connect; that tab keeps working with it.
  const other = new PanelPage(await page.context().newPage());
  await other.openWithToken(server.url, oldToken);
  const connect = await other.connect();
  await connect.makeNewPanelLink();
  const newToken = server.panelToken;
  expect(newToken).not.toBe(oldToken);
  expect(await new ConnectPage(other.page).panelLink()).toBe(`${server.url}/#token=${newToken}`);
  await other.sessions();
  await expect(other.app).toHaveAttribute('data-connection', 'ready');

  // The first tab learns at once that its link was replaced, and says what to do.
  await expect(panel.unreachable).toBeVisible({ timeout: 20_000 });
  await expect(panel.unreachable).toHaveAttribute('data-access', 'replaced');
  await expect(panel.unreachable).toContainText('The link of this page was replaced');
  await expect(panel.unreachable).toContainText('Paste the new link into the address bar of this tab');
  await expect(page.getByTestId('unreachable-link')).toBeVisible();
  await expect(page.getByTestId('session-row')).toHaveCount(0);
  await saveScreenshot(page, testInfo, 'link-replaced');

  // The new link pasted into the address bar of the same tab works at once.
  await page.evaluate((hash) => {
    window.location.hash = hash;
  }, `#token=${newToken}`);
  await panel.waitReady();
  expect(await stillSamePage(panel), 'no reload was needed').toBe(true);
  expect(await panel.route()).toBe('#/sessions');
  await expect(page.getByTestId('sessions-screen')).toBeVisible();

  // A tab with an old link can also take the new one in the box on its page.
  const third = new PanelPage(await page.context().newPage());
  await third.openRaw(`${server.url}/#token=${oldToken}`);
  await expect(third.unreachable).toHaveAttribute('data-access', 'invalid');
  await third.page.getByTestId('unreachable-link').fill(`${server.url}/#token=${newToken}`);
  await third.page.getByTestId('unreachable-use-link').click();
  await third.waitReady();
  await third.page.close();
  await other.page.close();
});

test('a Sandpit that stops answering without closing anything is noticed by its silent event stream, and the panel catches up when it answers again', async ({ page, server }, testInfo) => {
  // The panel reaches the shared Sandpit through a proxy that can hang: connections stay open, nothing comes.
  const proxy = await startFreezableProxy(server.url);
  try {
    const panel = new PanelPage(page);
    await panel.openWithToken(proxy.url, server.panelToken);
    await markWindow(panel);
    proxy.freeze();
    const frozenAt = Date.now();
    await expect(panel.linkLost).toBeVisible({ timeout: 15_000 });
    const noticedAfter = Date.now() - frozenAt;
    expect(noticedAfter, 'noticed by the 8 s of silence, not before').toBeGreaterThan(5_000);
    expect(noticedAfter).toBeLessThan(13_000);
    await expect(panel.engineStatus).toHaveAttribute('data-state', 'lost');
    await expect(page.getByTestId('status-bar')).not.toContainText('Docker is running');
    proxy.thaw();
    await expect(panel.linkLost).toBeHidden({ timeout: 20_000 });
    await expect(panel.engineStatus).toHaveAttribute('data-state', 'up');
    expect(await stillSamePage(panel)).toBe(true);
    testInfo.annotations.push({ type: 'note', description: `the silence was noticed after ${noticedAfter} ms` });
  } finally {
    proxy.thaw();
    await proxy.close();
  }
});
