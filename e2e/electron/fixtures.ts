/**
 * Electron mode: the same page objects on the desktop app's window (the panel over IPC). Skipped, saying
 * why, where the Electron binary is not installed.
 */
import { test as base } from '@playwright/test';
import { PanelPage } from '../pages/panel-page';
import { assistantPool } from '../support/mcp';
import type { AssistantFactory } from '../support/mcp';
import type { ServerInfo } from '../support/server-info';
import { launchDesktopApp } from './desktop-app';
import type { DesktopApp } from './desktop-app';

export interface ElectronFixtures {
  panel: PanelPage;
  assistants: AssistantFactory;
}

export interface ElectronWorkerFixtures {
  desktop: DesktopApp;
  server: ServerInfo;
}

export const test = base.extend<ElectronFixtures, ElectronWorkerFixtures>({
  desktop: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const desktop = await launchDesktopApp();
      try {
        await use(desktop);
      } finally {
        await desktop.close();
      }
    },
    { scope: 'worker', timeout: 180_000 },
  ],
  server: [
    async ({ desktop }, use) => {
      await use(desktop.server);
    },
    { scope: 'worker' },
  ],
  panel: async ({ desktop }, use) => {
    const panel = new PanelPage(await desktop.app.firstWindow());
    await panel.waitReady();
    await use(panel);
  },
  assistants: async ({ server }, use) => {
    const pool = assistantPool(server);
    await use(pool);
    await pool.closeAll();
  },
});

export { expect } from '@playwright/test';
