/**
 * Issue 21, "What is said must be true" #1: a rule typed by hand ("cursor") for an assistant that connects as
 * "cursor-vscode" matched nobody, so the assistant ran freely while the person believed it must ask. The form
 * explains matching, offers the names assistants connected with, and flags a typed name that matches none.
 */
import { textOf } from '../support/mcp';
import { uniqueName } from '../support/panel-api';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

test('a per-assistant rule is chosen from the names assistants connected with; a typed name that matches none is flagged', async ({ panel, assistants }, testInfo) => {
  const typed = uniqueName('cursor');
  const assistant = await assistants.connect(`${typed}-vscode`);
  const settings = await panel.settings();
  const approvals = settings.approvals;

  await expect(approvals.getByTestId('settings-approval-matching')).toHaveText(
    'A rule applies only to the assistant that connects with exactly this name (capitals count). Choose the name from the list of assistants that have connected.',
  );

  // The name typed by hand is flagged at once, with the name the assistant really connects with.
  await approvals.getByTestId('settings-approval-new-client').fill(typed);
  await expect(approvals.getByTestId('settings-approval-new-client-warning')).toHaveText(
    `No assistant has connected as “${typed}” since Sandpit started, so this rule applies to none of them. Did you mean “${assistant.name}”?`,
  );
  // Added anyway, its row keeps saying so.
  await approvals.getByTestId('settings-approval-add-client').click();
  await expect(settings.clientRule(typed).getByTestId('settings-approval-client-unmatched')).toContainText(`Did you mean “${assistant.name}”?`);
  await saveScreenshot(panel.page, testInfo, 'rule-flagged');
  await settings.clientRule(typed).getByRole('button', { name: `Remove the rule for ${typed}` }).click();

  // Chosen from the assistants that have connected: the rule matches, no flag, and the assistant must ask.
  await approvals.locator(`[data-testid="settings-approval-seen-client"][data-client="${assistant.name}"]`).click();
  await expect(settings.clientRule(assistant.name).getByRole('combobox')).toHaveValue('ask-every');
  await expect(settings.clientRule(assistant.name).getByTestId('settings-approval-client-unmatched')).toHaveCount(0);
  await settings.save();
  try {
    const marker = uniqueName('asked');
    const call = assistant.execute(`print("${marker}")`);
    const card = await panel.approvals.waitFor(marker);
    await expect(card.getByTestId('approval-client')).toHaveText(assistant.name);
    await panel.approvals.deny(card);
    const refusal = await call;
    expect(refusal.isError).toBe(true);
    expect(textOf(refusal)).toContain('denied this run');
  } finally {
    const again = await panel.settings();
    await again.removeRule(assistant.name);
  }
});
