import type { EnvironmentDefinition } from '../../shared/domain/environment';
import { FLAVOURS, FLAVOUR_ENTRIES, LANGUAGES, LANGUAGE_ENTRIES, PRESET_IDS, defaultFlavourOf, packageManagerOf } from '../../shared/domain/languages';
import { noPackages } from '../../shared/domain/package-managers';

export interface PresetOptions {
  /**
   * True when the base images are bootstrapped from Debian packages (no registry reachable): a flavour's
   * base then carries its packages itself (python-data: numpy, pandas, matplotlib), since its language's
   * package index may not be reachable.
   */
  offlineBase: boolean;
}

export interface PresetDefinition {
  id: string;
  definition: EnvironmentDefinition;
}

/** Ids the presets own: a user environment never gets one of them (the registry's, in display order). */
export { PRESET_IDS };

/** Presets have no real creation time; this fixed one keeps them stable across restarts. */
export const PRESET_TIMESTAMP = '1970-01-01T00:00:00.000Z';

/**
 * The built-in environments, in display order, from the language registry: each language's own (on its
 * first flavour, nothing added), and each flavour's own (its packages from its base image when that is
 * bootstrapped, else installed with its language's manager when the image is built). They live in code:
 * copy one to change it.
 */
export function presetDefinitions(options: PresetOptions): PresetDefinition[] {
  const common = { network: 'none', limits: {}, allowedHosts: [] as string[] } as const;
  const all = new Map<string, EnvironmentDefinition>();
  for (const language of LANGUAGES) {
    const entry = LANGUAGE_ENTRIES[language];
    all.set(entry.defaultEnvironment, {
      ...common,
      name: entry.preset.name,
      language,
      base: defaultFlavourOf(language),
      packages: noPackages(),
      description: entry.preset.description,
    });
  }
  for (const flavour of FLAVOURS) {
    const preset = FLAVOUR_ENTRIES[flavour].preset;
    if (!preset) continue;
    const packages = noPackages();
    if (!options.offlineBase) packages[packageManagerOf(preset.language)] = [...FLAVOUR_ENTRIES[flavour].includes];
    all.set(preset.id, {
      ...common,
      name: preset.name,
      language: preset.language,
      base: flavour,
      packages,
      description: options.offlineBase ? preset.description.bootstrap : preset.description.registry,
    });
  }
  return PRESET_IDS.map((id) => ({ id, definition: all.get(id)! }));
}

export function isPresetId(id: string): boolean {
  return PRESET_IDS.includes(id);
}
