/** One session: its live console, history, files, usage. */
import type { Locator, Page } from '@playwright/test';

export class SessionPage {
  readonly root: Locator;
  readonly console: Locator;
  readonly stdout: Locator;
  readonly done: Locator;

  constructor(
    readonly page: Page,
    readonly sessionId: string,
  ) {
    this.root = page.locator(`[data-testid="session-page"][data-session-id="${sessionId}"]`);
    this.console = this.root.getByTestId('session-console');
    this.stdout = this.console.getByTestId('console-stdout');
    this.done = this.console.getByTestId('console-done');
  }

  /** The stdout entries that hold `text`. */
  stdoutWith(text: string): Locator {
    return this.stdout.filter({ hasText: text });
  }
}
