import type { SandpitClient } from '../../../shared/api/client';
import { createArtifactsStore } from '../features/artifacts/artifacts-store';
import type { ArtifactsStore } from '../features/artifacts/artifacts-store';
import { createEnvironmentsStore } from '../features/environments/environments-store';
import type { EnvironmentsStore } from '../features/environments/environments-store';
import { createConsoleStore } from '../features/sessions/console-store';
import type { ConsoleStore } from '../features/sessions/console-store';
import { connectPanel, createPanelStore } from './panel-store';
import type { PanelSnapshot, PanelStore } from './panel-store';

/** Every store of the panel; each follows the live events it cares about. */
export interface AppStores {
  panel: PanelStore;
  console: ConsoleStore;
  environments: EnvironmentsStore;
  artifacts: ArtifactsStore;
}

export function createAppStores(client: SandpitClient, panel: PanelSnapshot = {}): AppStores {
  return {
    panel: createPanelStore(client, panel),
    console: createConsoleStore(),
    environments: createEnvironmentsStore(client),
    artifacts: createArtifactsStore(client),
  };
}

/** Follows live events into every store, then loads the first snapshot. Returns the function that stops following. */
export function connectApp(stores: AppStores, client: SandpitClient): () => void {
  const unsubscribe = client.subscribe((event) => {
    for (const store of [stores.console, stores.environments, stores.artifacts]) {
      try {
        store.getState().applyEvent(event);
      } catch {
        // One store failing on an event must not stop the others.
      }
    }
  });
  const stopPanel = connectPanel(stores.panel, client);
  return () => {
    unsubscribe();
    stopPanel();
  };
}
