import type { SettingsStore } from '../settings/settings-store';
import { requirePanel } from './panel-only';
import type { Handlers } from './sandpit-api';

type SettingsMethods = 'settings.get' | 'settings.update';

/** The person's settings: read by anyone the panel trusts, changed by the panel only. */
export function settingsHandlers(store: SettingsStore): Pick<Handlers, SettingsMethods> {
  return {
    'settings.get': async () => store.view(),
    'settings.update': async ({ patch }, context) => {
      requirePanel(context, 'change the settings');
      return store.update(patch);
    },
  };
}
