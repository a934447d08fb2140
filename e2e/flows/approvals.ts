/** An assistant under "ask me every time": its run waits for the person; approve → result, deny → clear refusal. */
import { expect } from '@playwright/test';
import type { TestInfo } from '@playwright/test';
import { textOf } from '../support/mcp';
import { uniqueName } from '../support/panel-api';
import { saveScreenshot } from '../support/screenshots';
import type { FlowContext } from './context';

export async function askApproveAndDeny({ panel, assistants }: FlowContext, testInfo: TestInfo): Promise<void> {
  const name = uniqueName('e2e-asker');
  const settings = await panel.settings();
  await settings.askEveryTime(name);
  await saveScreenshot(panel.page, testInfo, 'settings');
  try {
    const assistant = await assistants.connect(name);
    await panel.sessions();

    // Approve: the call waits, the prompt shows the code, then the client gets its result.
    const approved = uniqueName('approved');
    let returned = false;
    const first = assistant.execute(`print("${approved}")`).finally(() => {
      returned = true;
    });
    const card = await panel.approvals.waitFor(approved);
    await expect(card.getByTestId('approval-client')).toHaveText(name);
    await expect(card).toHaveAttribute('data-kind', 'execute');
    await expect(card.getByTestId('approval-countdown')).toContainText('Answer within');
    expect(returned, 'the call waits for the answer').toBe(false);
    await saveScreenshot(panel.page, testInfo, 'approval-prompt');
    await panel.approvals.approve(card);
    const ok = await first;
    expect(ok.isError ?? false, textOf(ok)).toBe(false);
    expect((ok.structuredContent as { stdout?: string } | undefined)?.stdout).toContain(approved);

    // Deny: the call ends with an error result that says the person refused, and the code never ran.
    const denied = uniqueName('denied');
    const second = assistant.execute(`print("${denied}")`);
    const card2 = await panel.approvals.waitFor(denied);
    await panel.approvals.deny(card2);
    const refusal = await second;
    expect(refusal.isError).toBe(true);
    expect(textOf(refusal)).toContain('DENIED');
    expect(textOf(refusal)).toContain('denied this run');

    const activity = await panel.activity();
    await expect(activity.rowsWith(denied)).toHaveAttribute('data-status', 'denied');
    await expect(activity.rowsWith(approved)).toHaveAttribute('data-status', 'ok');
  } finally {
    // Back to the default policy, through the same screen.
    const again = await panel.settings();
    await again.removeRule(name);
  }
}
