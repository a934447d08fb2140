/** Web mode: Chromium on the `sandpit serve` the global setup started, opened with the token link. */
import { test as base } from '@playwright/test';
import { PanelPage } from '../pages/panel-page';
import { assistantPool } from '../support/mcp';
import type { AssistantFactory } from '../support/mcp';
import { readServerInfo } from '../support/server-info';
import type { ServerInfo } from '../support/server-info';

export interface WebFixtures {
  /** The panel, connected (token taken from the link). */
  panel: PanelPage;
  /** MCP clients for this test; all closed after it. */
  assistants: AssistantFactory;
}

export interface WebWorkerFixtures {
  server: ServerInfo;
}

export const test = base.extend<WebFixtures, WebWorkerFixtures>({
  server: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      await use(readServerInfo());
    },
    { scope: 'worker' },
  ],
  panel: async ({ page, server }, use) => {
    const panel = new PanelPage(page);
    await panel.openWithToken(server.url, server.panelToken);
    await use(panel);
  },
  assistants: async ({ server }, use) => {
    const pool = assistantPool(server);
    await use(pool);
    await pool.closeAll();
  },
});

export { expect } from '@playwright/test';
