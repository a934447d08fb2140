import { describe, expect, it } from 'vitest';
import { isPresetId, PRESET_IDS, presetDefinitions } from './environment-presets';
import { validateDefinition } from './environment-store';

describe('presets', () => {
  it('offers Python, Python (data), Node.js, Bash, TypeScript and R in that order', () => {
    const presets = presetDefinitions({ offlineBase: true });
    expect(presets.map((p) => [p.id, p.definition.name, p.definition.language, p.definition.base])).toEqual([
      ['python', 'Python', 'python', 'python'],
      ['python-data', 'Python (data)', 'python', 'python-data'],
      ['node', 'Node.js', 'javascript', 'node'],
      ['bash', 'Bash', 'bash', 'python'],
      ['typescript', 'TypeScript', 'typescript', 'node'],
      ['r', 'R', 'r', 'r'],
    ]);
    expect(presets.map((p) => p.id)).toEqual(PRESET_IDS);
    expect(isPresetId('python-data')).toBe(true);
    expect(isPresetId('python-2')).toBe(false);
  });

  it('takes numpy, pandas and matplotlib from the offline base, from pip otherwise', () => {
    const offline = presetDefinitions({ offlineBase: true })[1]!.definition;
    const registry = presetDefinitions({ offlineBase: false })[1]!.definition;
    expect(offline.packages.pip).toEqual([]);
    expect(offline.description).toMatch(/Debian/);
    expect(registry.packages.pip).toEqual(['numpy', 'pandas', 'matplotlib']);
    expect(registry.description).toMatch(/pip/);
  });

  it('are valid definitions with no network', () => {
    for (const offlineBase of [true, false]) {
      for (const { definition } of presetDefinitions({ offlineBase })) {
        expect(validateDefinition(definition)).toEqual(definition);
        expect(definition.network).toBe('none');
      }
    }
  });
});
