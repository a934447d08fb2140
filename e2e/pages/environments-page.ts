/** Environments: the list, the presets, the create form, builds with their live log. */
import { expect } from '@playwright/test';
import type { Locator, Page } from '@playwright/test';

export type BuildState = 'idle' | 'plain' | 'building' | 'failed' | 'ready';

export class EnvironmentsPage {
  readonly root: Locator;
  readonly own: Locator;
  readonly presets: Locator;
  readonly form: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByTestId('environments-screen');
    this.own = page.getByTestId('env-list');
    this.presets = page.getByTestId('env-presets');
    this.form = page.getByTestId('env-form');
  }

  /** An environment of one's own, by its (unique) name. */
  row(name: string): Locator {
    return this.own.getByTestId('env-row').filter({ has: this.page.locator('h2', { hasText: name }) });
  }

  preset(id: string): Locator {
    return this.presets.locator(`[data-testid="env-row"][data-env-id="${id}"]`);
  }

  /** Fills the "New environment" form with a name and pip packages (typed as chips), then saves it (no build). */
  async create(name: string, pip: readonly string[] = []): Promise<Locator> {
    await this.page.getByTestId('env-new').click();
    await expect(this.form).toBeVisible();
    await this.form.getByTestId('env-name').fill(name);
    const input = this.form.getByTestId('env-packages-input');
    for (const spec of pip) {
      await input.fill(spec);
      await input.press('Enter');
      await expect(this.form.getByTestId('env-packages').getByTestId('chip').filter({ hasText: spec })).toBeVisible();
    }
    await this.form.getByTestId('env-save').click();
    await expect(this.form).toBeHidden();
    const row = this.row(name);
    await expect(row).toBeVisible();
    return row;
  }

  async build(name: string): Promise<void> {
    await this.row(name).getByTestId('env-build').click();
  }

  buildState(name: string): Locator {
    return this.row(name).getByTestId('env-build-state');
  }

  buildLog(name: string): Locator {
    return this.row(name).getByTestId('env-build-log');
  }

  buildLines(name: string): Locator {
    return this.row(name).getByTestId('env-build-line');
  }

  /** The package chip the failed build is blamed on (`data-failed`). */
  failedChip(name: string): Locator {
    return this.row(name).locator('[data-failed]');
  }
}
