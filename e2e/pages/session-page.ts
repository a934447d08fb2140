/** One session: its live console, history, files, usage. */
import { expect } from '@playwright/test';
import type { Locator, Page } from '@playwright/test';

export class SessionPage {
  readonly root: Locator;
  readonly console: Locator;
  readonly stdout: Locator;
  readonly done: Locator;
  readonly heading: Locator;
  readonly stats: Locator;

  constructor(
    readonly page: Page,
    readonly sessionId: string,
  ) {
    this.root = page.locator(`[data-testid="session-page"][data-session-id="${sessionId}"]`);
    this.console = this.root.getByTestId('session-console');
    this.stdout = this.console.getByTestId('console-stdout');
    this.done = this.console.getByTestId('console-done');
    this.heading = this.root.locator('h1');
    this.stats = this.root.getByTestId('session-stats');
  }

  /** Runs code from the panel's box (Run button) and waits for the run to end in the console. */
  async runHere(code: string): Promise<void> {
    const before = await this.done.count();
    await this.root.getByTestId('snippet-code').fill(code);
    await this.root.getByTestId('snippet-run').click();
    await expect(this.done).toHaveCount(before + 1, { timeout: 60_000 });
  }

  /** The Files tab's rows. */
  async files(): Promise<Locator> {
    await this.root.getByTestId('session-tab-files').click();
    await expect(this.root.getByTestId('session-files')).toBeVisible();
    return this.root.getByTestId('file-row');
  }

  /** The stdout entries that hold `text`. */
  stdoutWith(text: string): Locator {
    return this.stdout.filter({ hasText: text });
  }
}
