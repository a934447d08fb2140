/** Screenshots of the screens, attached to the test's report and kept in test-results/screenshots/. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page, TestInfo } from '@playwright/test';

export async function saveScreenshot(page: Page, testInfo: TestInfo, name: string): Promise<string> {
  const body = await page.screenshot({ fullPage: true });
  const dir = join(testInfo.project.outputDir, 'screenshots');
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${testInfo.project.name}-${name}.png`);
  await writeFile(file, body);
  await testInfo.attach(`screenshot: ${name}`, { body, contentType: 'image/png' });
  return file;
}
