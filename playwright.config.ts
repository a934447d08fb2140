/**
 * End-to-end tests (DESIGN §6): the panel driven in Chromium against one real headless Sandpit on the
 * real Docker engine (project "web"), and the same flows in the desktop app where the Electron binary is
 * installed (project "electron"; each spec reports itself skipped, with the reason, where it is not).
 * `npm test` runs this after `electron-vite build` with `--reporter=list,json` (reports/playwright.json).
 */
import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from './e2e/support/chromium';

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results',
  globalSetup: './e2e/global-setup.ts',
  workers: 1,
  fullyParallel: false,
  retries: 0,
  forbidOnly: true,
  timeout: 120_000,
  expect: { timeout: 20_000 },
  reporter: [['list']],
  use: {
    launchOptions: chromiumLaunchOptions(),
    viewport: { width: 1280, height: 860 },
    acceptDownloads: true,
    actionTimeout: 20_000,
    navigationTimeout: 30_000,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
  projects: [
    { name: 'web', testDir: 'e2e/web', use: { browserName: 'chromium' } },
    { name: 'electron', testDir: 'e2e/electron' },
  ],
});
