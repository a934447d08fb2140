/** How Chromium is launched here (TOOLCHAIN.md): Debian's browser, never a downloaded one, no network of its own. */
import type { LaunchOptions } from '@playwright/test';

export const CHROMIUM_PATH = '/usr/bin/chromium';

export const CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function chromiumLaunchOptions(): LaunchOptions {
  return { executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] };
}
