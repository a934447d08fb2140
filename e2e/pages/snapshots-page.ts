/** The Snapshots screen: saved copies of sessions, with restore and delete. */
import { expect } from '@playwright/test';
import type { Locator, Page } from '@playwright/test';

export class SnapshotsPage {
  readonly root: Locator;
  readonly rows: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByTestId('snapshots-screen');
    this.rows = page.getByTestId('snapshot-row');
  }

  /** The row of the snapshot with this name. */
  row(name: string): Locator {
    return this.rows.filter({ has: this.page.getByTestId('snapshot-name').getByText(name, { exact: true }) });
  }

  /** Delete from the list: it asks first; `confirm` answers. */
  async delete(name: string, confirm = true): Promise<void> {
    await this.row(name).getByTestId('snapshot-delete').click();
    const dialog = this.page.getByTestId('confirm-delete-snapshot');
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText(name);
    await dialog.getByTestId(confirm ? 'confirm-delete-snapshot-confirm' : 'confirm-delete-snapshot-close').click();
    await expect(dialog).toBeHidden();
  }
}
