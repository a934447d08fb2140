/** Screenshots of the screens, attached to the test's report and kept in test-results/screenshots/. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page, TestInfo } from '@playwright/test';

export interface ScreenshotOptions {
  /**
   * `page` (default): the whole screen, also what is scrolled out of view in the panel's scrolling area
   * (the shell is let grow for the picture). `viewport`: exactly what the window shows now.
   */
  area?: 'page' | 'viewport';
}

const GROW_CSS = '.shell { height: auto !important; min-height: 100vh; } .content { overflow: visible !important; }';

export async function saveScreenshot(page: Page, testInfo: TestInfo, name: string, options: ScreenshotOptions = {}): Promise<string> {
  const area = options.area ?? 'page';
  let body: Buffer;
  if (area === 'page') {
    const style = await page.addStyleTag({ content: GROW_CSS });
    try {
      body = await page.screenshot({ fullPage: true });
    } finally {
      await style.evaluate((el) => (el as Element).remove());
    }
  } else {
    body = await page.screenshot();
  }
  const dir = join(testInfo.project.outputDir, 'screenshots');
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${testInfo.project.name}-${name}.png`);
  await writeFile(file, body);
  await testInfo.attach(`screenshot: ${name}`, { body, contentType: 'image/png' });
  return file;
}
