/** Settings: one Save for every section (limits, isolation, approvals, packages, Docker, appearance, system). */
import { expect } from '@playwright/test';
import type { Locator, Page } from '@playwright/test';

export class SettingsPage {
  readonly root: Locator;
  readonly approvals: Locator;
  readonly saveBar: Locator;
  readonly docker: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByTestId('settings-screen');
    this.approvals = page.getByTestId('settings-approvals');
    this.saveBar = page.getByTestId('settings-savebar');
    this.docker = page.getByTestId('settings-docker');
  }

  clientRule(client: string): Locator {
    return this.approvals.locator(`[data-testid="settings-approval-client"][data-client="${client}"]`);
  }

  /** Presses "Save changes" and waits until the bar says it is saved. */
  async save(): Promise<void> {
    await this.saveBar.getByTestId('settings-save').click();
    await expect(this.saveBar).toHaveAttribute('data-state', 'saved');
  }

  /** Presses "Save changes" and waits until the bar says it was refused. */
  async saveRefused(): Promise<void> {
    await this.saveBar.getByTestId('settings-save').click();
    await expect(this.saveBar).toHaveAttribute('data-state', 'refused');
  }

  /** Adds a per-assistant rule (a new rule starts as "Ask me every time") and saves. */
  async askEveryTime(client: string): Promise<void> {
    await this.approvals.getByTestId('settings-approval-new-client').fill(client);
    await this.approvals.getByTestId('settings-approval-add-client').click();
    await expect(this.clientRule(client).getByRole('combobox')).toHaveValue('ask-every');
    await this.save();
  }

  /** Removes an assistant's own rule (it falls back to the default policy) and saves. */
  async removeRule(client: string): Promise<void> {
    await this.clientRule(client).getByRole('button', { name: `Remove the rule for ${client}` }).click();
    await expect(this.clientRule(client)).toHaveCount(0);
    await this.save();
  }

  /** Types a package index address for pip (the "Packages" section). */
  async setPipIndex(url: string): Promise<void> {
    await this.page.getByTestId('settings-pip-index').fill(url);
  }
}
