/** Activity: the audit log with filters, search, export and the chain check. */
import { expect } from '@playwright/test';
import type { Download, Locator, Page } from '@playwright/test';

export class ActivityPage {
  readonly root: Locator;
  readonly rows: Locator;
  readonly chain: Locator;
  readonly count: Locator;
  readonly detail: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByTestId('activity-screen');
    this.rows = page.getByTestId('activity-row');
    this.chain = page.getByTestId('chain-status');
    this.count = page.getByTestId('activity-count');
    this.detail = page.getByTestId('activity-detail');
  }

  /** Rows whose text holds `text` (client, session, code excerpt…). */
  rowsWith(text: string): Locator {
    return this.rows.filter({ hasText: text });
  }

  async filterClient(name: string): Promise<void> {
    await this.page.getByTestId('filter-client').fill(name);
  }

  async search(text: string): Promise<void> {
    await this.page.getByTestId('filter-search').fill(text);
  }

  async clearFilters(): Promise<void> {
    await this.page.getByTestId('filter-client').fill('');
    await this.page.getByTestId('filter-search').fill('');
  }

  /** The client column of every row in the DOM (the visible part of the virtual list). */
  async clientsShown(): Promise<string[]> {
    return this.rows.locator('[role="cell"]:nth-child(3)').allInnerTexts();
  }

  async exportCsv(): Promise<Download> {
    const download = this.page.waitForEvent('download');
    await this.page.getByTestId('activity-export-csv').click();
    const got = await download;
    await expect(this.page.getByTestId('activity-export-note')).toContainText('Exported');
    return got;
  }

  async openRow(row: Locator): Promise<Locator> {
    await row.click();
    await expect(this.detail).toBeVisible();
    return this.detail;
  }
}
