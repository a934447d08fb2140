/** The Sessions list. */
import { expect } from '@playwright/test';
import type { Locator, Page } from '@playwright/test';
import { SessionPage } from './session-page';

export class SessionsPage {
  readonly root: Locator;
  readonly rows: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByTestId('sessions-screen');
    this.rows = page.getByTestId('session-row');
  }

  row(sessionId: string): Locator {
    return this.page.locator(`[data-testid="session-row"][data-session-id="${sessionId}"]`);
  }

  /** Stop from the list: it asks first; `confirm` answers. */
  async stop(sessionId: string, confirm = true): Promise<void> {
    await this.row(sessionId).getByTestId('session-stop').click();
    const dialog = this.page.getByTestId('confirm-stop');
    await expect(dialog).toBeVisible();
    await dialog.getByTestId(confirm ? 'confirm-stop-confirm' : 'confirm-stop-close').click();
    await expect(dialog).toBeHidden();
  }

  /** Opens one session's page from the list (it must appear there first). */
  async open(sessionId: string): Promise<SessionPage> {
    const row = this.row(sessionId);
    await expect(row).toBeVisible();
    await row.getByTestId('session-open').click();
    const session = new SessionPage(this.page, sessionId);
    await expect(session.root).toBeVisible();
    return session;
  }
}
