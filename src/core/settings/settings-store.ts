import { isDeepStrictEqual } from 'node:util';
import { mkdir } from 'node:fs/promises';
import { RESTART_SETTINGS, SETTING_KEYS } from '../../shared/domain/settings';
import type { SettingKey, Settings, SettingsView } from '../../shared/domain/settings';
import type { Logger } from '../log';
import { readSettingsFile, settingsPath, writeSettingsFile } from './settings-file';
import { applyPatch, effectiveSettings, parsePatch } from './stored-settings';
import type { StoredSettings } from './stored-settings';

export type SettingsListener = (next: Settings, previous: Settings) => void;

export interface OpenSettingsOptions {
  /** The data folder (settings.json lives in it). */
  home: string;
  /** The settings the configuration stands for: what applies where the person set nothing. */
  base: Settings;
  log?: Logger;
}

/**
 * `$SANDPIT_HOME/settings.json`: what the person changed, over the configuration's values. Updates are
 * validated, written atomically (0600) one at a time, and then announced to the listeners.
 */
export class SettingsStore {
  private stored: StoredSettings;
  private effective: Settings;
  /** What was in effect when this process started: settings that need a restart are compared with it. */
  private readonly atStart: Settings;
  private readonly listeners = new Set<SettingsListener>();
  private writing: Promise<unknown> = Promise.resolve();
  /** Checks a change before it is saved (e.g. that a new Docker address answers); throwing refuses it. */
  private validator: ((next: Settings, previous: Settings) => Promise<void>) | undefined;

  private constructor(
    readonly home: string,
    private readonly base: Settings,
    stored: StoredSettings,
    private readonly log: Logger | undefined,
  ) {
    this.stored = stored;
    this.effective = effectiveSettings(base, stored);
    this.atStart = this.effective;
  }

  static async open(options: OpenSettingsOptions): Promise<SettingsStore> {
    await mkdir(options.home, { recursive: true, mode: 0o700 });
    const stored = await readSettingsFile(settingsPath(options.home), options.log);
    return new SettingsStore(options.home, options.base, stored, options.log);
  }

  /** The settings in effect now. */
  get current(): Settings {
    return this.effective;
  }

  /** Settings changed since start-up that take effect only after a restart. */
  restartNeeded(): SettingKey[] {
    return RESTART_SETTINGS.filter((key) => !isDeepStrictEqual(this.effective[key], this.atStart[key]));
  }

  view(): SettingsView {
    return { ...structuredClone(this.effective), dataFolder: this.home, restartNeeded: this.restartNeeded() };
  }

  /** Validates and saves a change (INVALID_INPUT naming the field), then tells the listeners. */
  update(rawPatch: unknown): Promise<SettingsView> {
    const patch = parsePatch(rawPatch);
    const run = this.writing.then(async () => {
      const stored = applyPatch(this.stored, patch);
      const next = effectiveSettings(this.base, stored);
      await this.validator?.(next, this.effective);
      await writeSettingsFile(settingsPath(this.home), stored);
      const previous = this.effective;
      this.stored = stored;
      this.effective = next;
      const changed = SETTING_KEYS.filter((key) => !isDeepStrictEqual(previous[key], next[key]));
      this.log?.info('settings saved', { changed });
      if (changed.length > 0) for (const listener of this.listeners) this.notify(listener, next, previous);
      return this.view();
    });
    this.writing = run.catch(() => undefined);
    return run;
  }

  /** Sets the check every change must pass before it is saved. */
  validateWith(validator: (next: Settings, previous: Settings) => Promise<void>): void {
    this.validator = validator;
  }

  /** Called after every saved change that changed something. */
  onChange(listener: SettingsListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private notify(listener: SettingsListener, next: Settings, previous: Settings): void {
    try {
      listener(next, previous);
    } catch (error) {
      this.log?.warn('a settings listener failed', { error: error instanceof Error ? error.message : String(error) });
    }
  }
}
