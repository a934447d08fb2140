/** The panel's shell: connection state, navigation, status bar. Screens hang off it. */
import { expect } from '@playwright/test';
import type { Locator, Page } from '@playwright/test';
import { ActivityPage } from './activity-page';
import { ApprovalPrompt } from './approval-prompt';
import { ArtifactsPage } from './artifacts-page';
import { ConnectPage } from './connect-page';
import { EnvironmentsPage } from './environments-page';
import { SessionsPage } from './sessions-page';
import { SettingsPage } from './settings-page';
import { SnapshotsPage } from './snapshots-page';

export type Screen = 'sessions' | 'environments' | 'artifacts' | 'snapshots' | 'activity' | 'connect' | 'settings';

/** Every screen of the navigation, in its order. */
export const NAV_SCREENS: readonly Screen[] = ['sessions', 'environments', 'artifacts', 'snapshots', 'activity', 'connect', 'settings'];

export class PanelPage {
  readonly app: Locator;
  readonly unreachable: Locator;
  readonly approvals: ApprovalPrompt;
  readonly engineStatus: Locator;
  readonly clientsStatus: Locator;
  readonly guide: Locator;
  readonly linkLost: Locator;

  constructor(readonly page: Page) {
    this.app = page.getByTestId('app');
    this.unreachable = page.getByTestId('unreachable');
    this.approvals = new ApprovalPrompt(page);
    this.engineStatus = page.getByTestId('status-engine');
    this.clientsStatus = page.getByTestId('status-clients');
    this.guide = page.getByTestId('guide');
    this.linkLost = page.getByTestId('link-lost');
  }

  /** The panel's address after the #: its route (e.g. "#/sessions"). */
  route(): Promise<string> {
    return this.page.evaluate(() => window.location.hash);
  }

  /** Opens the web panel with the link `sandpit serve` prints (token in the fragment) and waits until it is connected. */
  async openWithToken(url: string, token: string): Promise<void> {
    await this.page.goto(`${url}/#token=${token}`);
    await this.waitReady();
  }

  /** The panel at `url` exactly as given (e.g. without a token). */
  async openRaw(url: string): Promise<void> {
    await this.page.goto(url);
  }

  async waitReady(): Promise<void> {
    await expect(this.app).toHaveAttribute('data-connection', 'ready');
    await expect(this.page.getByTestId('status-engine')).toHaveAttribute('data-state', 'up');
  }

  async go(screen: Screen): Promise<void> {
    const item = this.page.getByTestId(`nav-${screen}`);
    await item.click();
    await expect(item).toHaveAttribute('aria-current', 'page');
  }

  async sessions(): Promise<SessionsPage> {
    await this.go('sessions');
    const screen = new SessionsPage(this.page);
    await expect(screen.root).toBeVisible();
    return screen;
  }

  async environments(): Promise<EnvironmentsPage> {
    await this.go('environments');
    const screen = new EnvironmentsPage(this.page);
    await expect(screen.root).toBeVisible();
    return screen;
  }

  async artifacts(): Promise<ArtifactsPage> {
    await this.go('artifacts');
    const screen = new ArtifactsPage(this.page);
    await expect(screen.root).toBeVisible();
    return screen;
  }

  async snapshots(): Promise<SnapshotsPage> {
    await this.go('snapshots');
    const screen = new SnapshotsPage(this.page);
    await expect(screen.root).toBeVisible();
    return screen;
  }

  async activity(): Promise<ActivityPage> {
    await this.go('activity');
    const screen = new ActivityPage(this.page);
    await expect(screen.root).toBeVisible();
    return screen;
  }

  async connect(): Promise<ConnectPage> {
    await this.go('connect');
    const screen = new ConnectPage(this.page);
    await expect(screen.root).toBeVisible();
    return screen;
  }

  async settings(): Promise<SettingsPage> {
    await this.go('settings');
    const screen = new SettingsPage(this.page);
    await expect(screen.root).toBeVisible();
    return screen;
  }
}
