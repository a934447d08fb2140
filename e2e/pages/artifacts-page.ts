/** Artifacts: the gallery of files runs made, with picture previews, and one artifact's detail. */
import { expect } from '@playwright/test';
import type { Locator, Page } from '@playwright/test';

/** The decoded width of an <img> (0 while it has not loaded, or when it is broken). */
export function naturalWidth(img: Locator): Promise<number> {
  return img.evaluate((el) => (el instanceof HTMLImageElement && el.complete ? el.naturalWidth : 0));
}

export class ArtifactsPage {
  readonly root: Locator;
  readonly gallery: Locator;
  readonly detail: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByTestId('artifacts-screen');
    this.gallery = page.getByTestId('artifact-gallery');
    this.detail = page.getByTestId('artifact-detail');
  }

  /** The card of a file, by its name (e.g. "plot.png"); reloads the gallery until it is there. */
  async card(fileName: string): Promise<Locator> {
    const card = this.page.getByTestId('artifact-card').filter({ hasText: fileName });
    await expect(async () => {
      if (!(await card.first().isVisible())) await this.page.getByTestId('artifacts-refresh').click();
      await expect(card.first()).toBeVisible({ timeout: 2_000 });
    }).toPass({ timeout: 30_000 });
    return card.first();
  }

  async open(card: Locator): Promise<Locator> {
    await card.getByTestId('artifact-open').click();
    await expect(this.detail).toBeVisible();
    return this.detail.getByTestId('artifact-content');
  }

  async closeDetail(): Promise<void> {
    await this.page.getByTestId('artifact-detail-close').click();
    await expect(this.detail).toBeHidden();
  }
}
