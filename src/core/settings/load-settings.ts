import type { SandpitConfig } from '../config';
import type { Logger } from '../log';
import { configWithSettings, settingsFromConfig } from './settings-config';
import { SettingsStore } from './settings-store';

/**
 * Opens the data folder's settings and applies them over `config` (call before anything reads the
 * config, e.g. the Docker client's host); pass both on to createSandpit.
 */
export async function withStoredSettings(config: SandpitConfig, log?: Logger): Promise<{ config: SandpitConfig; settings: SettingsStore }> {
  const settings = await SettingsStore.open({ home: config.home, base: settingsFromConfig(config), ...(log ? { log } : {}) });
  return { config: configWithSettings(config, settings.current), settings };
}
