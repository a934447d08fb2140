/**
 * #7 and #8 Words for a person, and choices that do not look alike: sessions have readable names (the id is
 * in Details), the footer says who is connected without the MCP address, Connect says what each thing is
 * for (the technical parts under Details), the approval card names the session, not its id; New session
 * tells the built-in environments apart, and "Python (data)" says what it comes with.
 */
import { uniqueName } from '../support/panel-api';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

test('sessions, the footer, Connect and Activity speak plainly; the technical words wait under Details', async ({ panel, assistants, server }, testInfo) => {
  const page = panel.page;
  const assistant = await assistants.connect(uniqueName('Claude Desktop'));
  const run = await assistant.run('print("hi")');

  // The footer: Docker in words, who is connected, no MCP address.
  await expect(page.getByTestId('status-bar')).toContainText('Docker is running');
  await expect(page.getByTestId('status-bar')).not.toContainText('MCP');
  await expect(page.getByTestId('status-bar')).not.toContainText('/mcp');
  await expect(page.getByTestId('status-clients')).toContainText(assistant.name);

  // A session: a name, never its id, in the list and as the title; the id is under Details.
  const sessions = await panel.sessions();
  const row = sessions.row(run.session_id);
  await expect(row.getByTestId('session-name')).toHaveText(/^Python \d+$/);
  await expect(row).not.toContainText(run.session_id);
  await expect(row).toContainText(`Started by ${assistant.name}`);
  const session = await sessions.open(run.session_id);
  await expect(session.root.getByTestId('session-title')).toHaveText(/^Python \d+$/);
  await expect(page).toHaveTitle(/^Python \d+ — Sessions — Sandpit$/);
  await expect(session.root.getByTestId('session-summary')).toContainText('No network');
  await expect(session.root.getByTestId('session-summary')).toContainText('Standard isolation');
  await expect(session.root.locator('.screen-head')).not.toContainText('ses-');
  await session.root.getByTestId('session-tab-usage').click();
  await expect(session.root.getByTestId('session-details-facts')).toBeHidden();
  await session.root.getByTestId('session-details').locator('summary').click();
  await expect(session.root.getByTestId('session-details-facts')).toContainText(run.session_id);
  await expect(session.root.getByTestId('session-usage')).toContainText('gVisor puts a separate kernel');
  await saveScreenshot(page, testInfo, 'words-session');

  // Connect: what to do first; addresses and commands only under "Details for developers".
  const connect = await panel.connect();
  await expect(connect.root).not.toContainText('Command (stdio)');
  await expect(connect.mcpUrl).toBeHidden();
  await expect(connect.root.getByTestId('connect-configs')).toContainText('Recommended: the app starts Sandpit by itself');
  await connect.root.getByTestId('connect-details').locator('summary').click();
  await expect(connect.mcpUrl).toHaveText(`${server.url}/mcp`);
  await expect(connect.root.getByTestId('connect-details')).toContainText('Start command (for apps that launch Sandpit themselves)');
  await saveScreenshot(page, testInfo, 'words-connect');

  // Activity: the session by its name, downloads in words, the format in small print.
  const activity = await panel.activity();
  await activity.filterClient(assistant.name);
  await expect(activity.rows.first()).toBeVisible();
  await expect(activity.rows.first()).not.toContainText('ses-');
  await expect(page.getByTestId('activity-export-csv')).toContainText('Download for spreadsheets');
  await expect(page.getByTestId('activity-export-jsonl')).toContainText('Download everything');
  await expect(page.getByTestId('activity-screen')).not.toContainText('JSONL');
  const detail = await activity.openRow(activity.rows.first());
  await expect(detail).not.toContainText('Fingerprint');
  await detail.getByTestId('activity-detail-details').locator('summary').click();
  await expect(detail.getByTestId('activity-detail-details')).toContainText('Check code');
  await saveScreenshot(page, testInfo, 'words-activity-detail');
});

test('an approval names the assistant and the session by name, not by id', async ({ panel, assistants }, testInfo) => {
  const page = panel.page;
  const name = uniqueName('e2e-asker');
  const settings = await panel.settings();
  await settings.askEveryTime(name);
  try {
    const assistant = await assistants.connect(name);
    const first = assistant.execute('print("first")');
    const card1 = await panel.approvals.waitFor('print("first")');
    await panel.approvals.approve(card1);
    const sessionId = ((await first).structuredContent as { session_id: string }).session_id;
    await panel.sessions();
    const second = assistant.execute('print("second")', { sessionId });
    const card = await panel.approvals.waitFor('print("second")');
    await expect(card).toContainText(`${name} asks`);
    await expect(card).toContainText(/in the session "Python \d+"/);
    await expect(card.locator('p').first()).not.toContainText(sessionId);
    await saveScreenshot(page, testInfo, 'words-approval', { area: 'viewport' });
    await panel.approvals.approve(card);
    await second;
  } finally {
    const again = await panel.settings();
    await again.removeRule(name);
  }
});

test('New session tells the built-in environments apart; "Python (data)" says what it comes with', async ({ panel }, testInfo) => {
  const page = panel.page;
  await panel.sessions();
  await page.getByTestId('session-new').click();
  const dialog = page.getByTestId('new-session-dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.locator('legend').first()).toHaveText('Built in');
  const python = dialog.getByTestId('new-session-choice').filter({ has: page.getByTestId('new-session-environment-python') });
  const data = dialog.getByTestId('new-session-choice').filter({ has: page.getByTestId('new-session-environment-python-data') });
  const bash = dialog.getByTestId('new-session-choice').filter({ has: page.getByTestId('new-session-environment-bash') });
  await expect(python).toContainText('general scripts');
  await expect(data).toContainText('numpy, pandas and matplotlib');
  await expect(bash).toContainText('command line');
  const builtIn = dialog.locator('fieldset').first().getByTestId('new-session-choice');
  await expect(builtIn).toHaveCount(6);
  const blurbs = await builtIn.locator('.muted.small').allInnerTexts();
  expect(new Set(blurbs).size, 'every built-in choice reads differently').toBe(6);
  expect(await builtIn.locator('strong').allInnerTexts(), 'plain Python first').toEqual(['Python', 'Python (data)', 'Node.js', 'Bash', 'TypeScript', 'R']);
  await saveScreenshot(page, testInfo, 'choices-new-session', { area: 'viewport' });
  await dialog.getByTestId('new-session-dialog-close').click();

  const envs = await panel.environments();
  const preset = envs.preset('python-data');
  await expect(preset.getByTestId('env-comes-with')).toHaveText('Comes with numpy, pandas, matplotlib.');
  await expect(preset).not.toContainText('No extra packages');
  await expect(preset.getByTestId('env-facts')).not.toContainText('python-data');
  await expect(envs.preset('python')).toContainText('no packages added');
});
