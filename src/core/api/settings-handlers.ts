import type { SettingsStore } from '../settings/settings-store';
import type { Handlers } from './api-types';

type SettingsMethods = 'settings.get' | 'settings.update';

/** The person's settings: read by anyone, changed by the panel only (the policy table). */
export function settingsHandlers(store: SettingsStore): Pick<Handlers, SettingsMethods> {
  return {
    'settings.get': async () => store.view(),
    'settings.update': async ({ patch }) => store.update(patch),
  };
}
