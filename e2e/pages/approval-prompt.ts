/** The approval prompts shown over every screen while a call waits for the person's answer. */
import { expect } from '@playwright/test';
import type { Locator, Page } from '@playwright/test';

export class ApprovalPrompt {
  readonly stack: Locator;
  readonly cards: Locator;

  constructor(readonly page: Page) {
    this.stack = page.getByTestId('approvals');
    this.cards = page.getByTestId('approval');
  }

  /** The request whose code holds `text` (waits for it to appear). */
  async waitFor(text: string): Promise<Locator> {
    const card = this.cards.filter({ has: this.page.getByTestId('approval-code').filter({ hasText: text }) });
    await expect(card).toBeVisible();
    return card;
  }

  async approve(card: Locator): Promise<void> {
    await card.getByTestId('approval-approve').click();
    await expect(card).toBeHidden();
  }

  async deny(card: Locator): Promise<void> {
    await card.getByTestId('approval-deny').click();
    await expect(card).toBeHidden();
  }
}
