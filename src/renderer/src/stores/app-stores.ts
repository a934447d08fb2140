import type { SandpitClient } from '../../../shared/api/client';
import { createActivityStore } from '../features/activity/activity-store';
import type { ActivityStore } from '../features/activity/activity-store';
import { createApprovalsStore } from '../features/approvals/approvals-store';
import type { ApprovalsStore } from '../features/approvals/approvals-store';
import { createArtifactsStore } from '../features/artifacts/artifacts-store';
import type { ArtifactsStore } from '../features/artifacts/artifacts-store';
import { createConnectStore } from '../features/connect/connect-store';
import type { ConnectStore } from '../features/connect/connect-store';
import { createEnvironmentsStore } from '../features/environments/environments-store';
import type { EnvironmentsStore } from '../features/environments/environments-store';
import { createGuideStore } from '../features/guide/guide-store';
import type { GuideStore } from '../features/guide/guide-store';
import { createReplayStore } from '../features/replay/replay-store';
import type { ReplayStore } from '../features/replay/replay-store';
import { createConsoleStore } from '../features/sessions/console-store';
import type { ConsoleStore } from '../features/sessions/console-store';
import { createSettingsStore } from '../features/settings/settings-store';
import type { SettingsStore } from '../features/settings/settings-store';
import { connectPanel, createPanelStore } from './panel-store';
import type { PanelSnapshot, PanelStore } from './panel-store';

/** Every store of the panel; each follows the live events it cares about. */
export interface AppStores {
  panel: PanelStore;
  console: ConsoleStore;
  environments: EnvironmentsStore;
  artifacts: ArtifactsStore;
  activity: ActivityStore;
  approvals: ApprovalsStore;
  connect: ConnectStore;
  settings: SettingsStore;
  guide: GuideStore;
  replay: ReplayStore;
}

export interface AppStoreOptions {
  panel?: PanelSnapshot;
  /** Where "dismissed" and the theme are remembered (localStorage in the panel). */
  storage?: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;
}

export function createAppStores(client: SandpitClient, options: AppStoreOptions = {}): AppStores {
  return {
    panel: createPanelStore(client, options.panel),
    console: createConsoleStore(),
    environments: createEnvironmentsStore(client),
    artifacts: createArtifactsStore(client),
    activity: createActivityStore(client),
    approvals: createApprovalsStore(client),
    connect: createConnectStore(client),
    settings: createSettingsStore(client, options.storage),
    guide: createGuideStore(client, options.storage),
    replay: createReplayStore(client),
  };
}

/** Loads again what the shell shows and what screens already loaded (after the link came back, or a new token). */
export function reloadAll(stores: AppStores): void {
  void stores.approvals.getState().load();
  void stores.connect.getState().load();
  void stores.guide.getState().load();
  if (stores.environments.getState().status !== 'idle') void stores.environments.getState().load();
  if (stores.artifacts.getState().status !== 'idle') void stores.artifacts.getState().load();
  if (stores.activity.getState().status !== 'idle') void stores.activity.getState().load();
  if (stores.settings.getState().status !== 'idle') void stores.settings.getState().load();
}

/** Follows live events into every store, then loads what the shell shows at once. Returns the function that stops. */
export function connectApp(stores: AppStores, client: SandpitClient): () => void {
  const followers = [
    stores.console,
    stores.environments,
    stores.artifacts,
    stores.activity,
    stores.approvals,
    stores.connect,
    stores.settings,
    stores.guide,
    stores.replay,
  ];
  const unsubscribe = client.subscribe((event) => {
    for (const store of followers) {
      try {
        store.getState().applyEvent(event);
      } catch {
        // One store failing on an event must not stop the others.
      }
    }
  });
  const stopPanel = connectPanel(stores.panel, client, () => reloadAll(stores));
  // Unsaved settings hold navigation until the person decides.
  const stopGuard = stores.settings.subscribe((state) => {
    if (stores.panel.getState().blocked !== state.dirty) stores.panel.getState().setBlocked(state.dirty);
  });
  void stores.approvals.getState().load();
  void stores.connect.getState().load();
  void stores.guide.getState().load();
  return () => {
    unsubscribe();
    stopPanel();
    stopGuard();
  };
}
