import type { EnvironmentDefinition } from '../../shared/domain/environment';

export interface PresetOptions {
  /**
   * True when the base images are bootstrapped from Debian packages (no registry reachable): the
   * python-data base then carries numpy, pandas and matplotlib itself, since pip may not reach PyPI.
   */
  offlineBase: boolean;
}

export interface PresetDefinition {
  id: string;
  definition: EnvironmentDefinition;
}

/** Ids the presets own: a user environment never gets one of them. */
export const PRESET_IDS: readonly string[] = ['python', 'python-data', 'node', 'bash', 'typescript'];

/** Presets have no real creation time; this fixed one keeps them stable across restarts. */
export const PRESET_TIMESTAMP = '1970-01-01T00:00:00.000Z';

const DATA_PACKAGES = ['numpy', 'pandas', 'matplotlib'];

/** The built-in environments, in display order. They live in code: copy one to change it. */
export function presetDefinitions(options: PresetOptions): PresetDefinition[] {
  const common = { network: 'none', limits: {}, allowedHosts: [] as string[] } as const;
  return [
    {
      id: 'python',
      definition: {
        ...common,
        name: 'Python',
        language: 'python',
        base: 'python',
        packages: { pip: [], npm: [], apt: [] },
        description: 'Python 3 with the standard library only.',
      },
    },
    {
      id: 'python-data',
      definition: {
        ...common,
        name: 'Python (data)',
        language: 'python',
        base: 'python-data',
        packages: { pip: options.offlineBase ? [] : [...DATA_PACKAGES], npm: [], apt: [] },
        description: options.offlineBase
          ? 'Python 3 with numpy, pandas and matplotlib from Debian packages in the base image (no package index needed).'
          : 'Python 3 with numpy, pandas and matplotlib, installed with pip when the image is built.',
      },
    },
    {
      id: 'node',
      definition: {
        ...common,
        name: 'Node.js',
        language: 'javascript',
        base: 'node',
        packages: { pip: [], npm: [], apt: [] },
        description: 'Node.js with its built-in modules only.',
      },
    },
    {
      id: 'bash',
      definition: {
        ...common,
        name: 'Bash',
        language: 'bash',
        base: 'python',
        packages: { pip: [], npm: [], apt: [] },
        description: 'A Bash shell with the usual command-line tools (and Python 3).',
      },
    },
    {
      id: 'typescript',
      definition: {
        ...common,
        name: 'TypeScript',
        language: 'typescript',
        base: 'node',
        packages: { pip: [], npm: [], apt: [] },
        description: 'TypeScript on Node.js (types are removed before it runs; they are not checked).',
      },
    },
  ];
}

export function isPresetId(id: string): boolean {
  return PRESET_IDS.includes(id);
}
