/** Settings: limits, approvals, package downloads, system. */
import { expect } from '@playwright/test';
import type { Locator, Page } from '@playwright/test';

export class SettingsPage {
  readonly root: Locator;
  readonly approvals: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByTestId('settings-screen');
    this.approvals = page.getByTestId('settings-approvals');
  }

  clientRule(client: string): Locator {
    return this.approvals.locator(`[data-testid="settings-approval-client"][data-client="${client}"]`);
  }

  /** Adds a per-assistant rule (a new rule starts as "Ask me every time") and saves the approvals card. */
  async askEveryTime(client: string): Promise<void> {
    await this.approvals.getByTestId('settings-approval-new-client').fill(client);
    await this.approvals.getByTestId('settings-approval-add-client').click();
    await expect(this.clientRule(client).getByRole('combobox')).toHaveValue('ask-every');
    await this.approvals.getByTestId('settings-approvals-save').click();
    await expect(this.approvals.getByTestId('settings-approvals-result')).toHaveText('Saved.');
  }

  /** Removes an assistant's own rule (it falls back to the default policy) and saves. */
  async removeRule(client: string): Promise<void> {
    await this.clientRule(client).getByRole('button', { name: `Remove the rule for ${client}` }).click();
    await expect(this.clientRule(client)).toHaveCount(0);
    await this.approvals.getByTestId('settings-approvals-save').click();
    await expect(this.approvals.getByTestId('settings-approvals-result')).toHaveText('Saved.');
  }
}
