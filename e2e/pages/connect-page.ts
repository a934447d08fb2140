/** Connect: the addresses, the token, configs for each assistant, clients connected now. */
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
}
