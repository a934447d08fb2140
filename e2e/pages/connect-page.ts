/** Connect: the addresses, the token, configs for each assistant, clients connected now. */
import { expect } from '@playwright/test';
import type { Locator, Page } from '@playwright/test';

export class ConnectPage {
  readonly root: Locator;
  readonly mcpUrl: Locator;
  readonly clients: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByTestId('connect-screen');
    this.mcpUrl = page.getByTestId('connect-mcp-url');
    this.clients = page.getByTestId('connect-client');
  }

  /** The web panel link as the Copy button copies it (shown with "Show"). */
  async panelLink(): Promise<string> {
    const link = this.page.getByTestId('connect-panel-link');
    await this.page.getByTestId('connect-panel-link-show').click();
    await expect(link).toContainText('#token=');
    await expect(link).not.toContainText('•');
    return (await link.innerText()).trim();
  }

  /** "Make a new link", confirmed: this tab switches to the new one. */
  async makeNewPanelLink(): Promise<void> {
    await this.page.getByTestId('connect-panel-link-rotate').click();
    await this.page.getByTestId('confirm-panel-rotate-confirm').click();
    await expect(this.page.getByTestId('connect-panel-link-made')).toBeVisible();
  }
}
