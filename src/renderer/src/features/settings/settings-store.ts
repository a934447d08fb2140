import { createStore } from 'zustand/vanilla';
import type { StoreApi } from 'zustand/vanilla';
import type { SandpitClient, SandpitEvent } from '../../../../shared/api/client';
import type { SettingsPatch, SettingsView } from '../../../../shared/domain/settings';
import { isUnavailable } from '../../lib/unavailable';
import { plainError } from '../../stores/panel-store';

export interface SettingsState {
  status: 'idle' | 'loading' | 'ready' | 'error' | 'unavailable';
  problem?: string;
  view?: SettingsView;
  load: () => Promise<void>;
  /** Saves a change; resolves with the error message when it was refused. */
  update: (patch: SettingsPatch) => Promise<string | undefined>;
  applyEvent: (event: SandpitEvent) => void;
}

export type SettingsStore = StoreApi<SettingsState>;

export function createSettingsStore(client: SandpitClient): SettingsStore {
  return createStore<SettingsState>()((set, get) => ({
    status: 'idle',

    load: async () => {
      if (get().status === 'idle') set({ status: 'loading' });
      try {
        set({ status: 'ready', problem: undefined, view: await client.call('settings.get') });
      } catch (error) {
        set(isUnavailable(error) ? { status: 'unavailable' } : { status: 'error', problem: plainError(error) });
      }
    },

    update: async (patch) => {
      try {
        set({ view: await client.call('settings.update', { patch }) });
        return undefined;
      } catch (error) {
        return plainError(error);
      }
    },

    applyEvent: (event) => {
      if (event.name === 'settings.updated') set({ view: event.payload, status: 'ready' });
    },
  }));
}
