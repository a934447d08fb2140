import { describe, expect, it } from 'vitest';
import { IMAGE_ORDER, MANAGER_IDS, PACKAGE_MANAGERS, allPackages, noPackages } from './package-managers';
import { FLAVOUR_AGENTS, LANGUAGES, LANGUAGE_ENTRIES, runsOn } from './languages';
import { environmentDefinitionInputSchema } from './environment';

describe('the package-manager registry', () => {
  it('has one entry per id, each with the words a person reads', () => {
    for (const id of MANAGER_IDS) {
      const entry = PACKAGE_MANAGERS[id];
      expect(entry.id).toBe(id);
      expect(entry.label).toMatch(/packages \(/);
      expect(entry.hint).toContain(entry.example);
      expect('refused' in entry.parse(entry.example)).toBe(false);
    }
  });

  it('normalises and refuses with each manager grammar', () => {
    expect(PACKAGE_MANAGERS.pip.parse('numpy >= 1.26')).toEqual({ raw: 'numpy>=1.26', name: 'numpy' });
    expect(PACKAGE_MANAGERS.npm.parse('@scope/pkg@^1')).toEqual({ raw: '@scope/pkg@^1', name: '@scope/pkg' });
    expect(PACKAGE_MANAGERS.apt.parse('jq; rm -rf /')).toEqual({ refused: 'apt package names are lowercase letters, digits and + . -' });
    expect(PACKAGE_MANAGERS.npm.parse('lodash`id`')).toHaveProperty('refused');
    expect(PACKAGE_MANAGERS.pip.compareKey('Foo_Bar.baz')).toBe(PACKAGE_MANAGERS.pip.compareKey('foo-bar-baz'));
  });

  it("reads R package names as CRAN does: letters, digits and dots, a letter first, no version", () => {
    const cran = PACKAGE_MANAGERS.cran;
    expect(cran.parse('data.table')).toEqual({ raw: 'data.table', name: 'data.table' });
    expect(cran.parse('ggplot2')).toEqual({ raw: 'ggplot2', name: 'ggplot2' });
    for (const bad of ['2pkg', 'ggplot2>=3.4', 'gg_plot', 'x', 'pkg.', 'a; system("id")']) {
      expect(cran.parse(bad), bad).toEqual({ refused: 'use an R package name like "ggplot2" (letters, digits and dots, no version)' });
    }
    expect(cran.compareKey('Matrix')).toBe(cran.compareKey('matrix'));
    expect(cran.notebook.code?.install(['ggplot2', 'data.table'])).toBe('install.packages(c("ggplot2", "data.table"))');
    expect(cran.notebook.code?.check(['MASS'])).toBe('packageVersion("MASS")');
  });

  it('every language names a manager of the registry, and bakes system packages first', () => {
    for (const language of LANGUAGES) expect(MANAGER_IDS).toContain(LANGUAGE_ENTRIES[language].packageManager);
    expect(IMAGE_ORDER[0]).toBe('apt');
    expect(allPackages({ ...noPackages(), pip: ['a'], apt: ['b'] })).toEqual(['a', 'b']);
  });

  it('the environment schema has one list per manager, described from the registry', () => {
    const shape = environmentDefinitionInputSchema.parse({ name: 'x', language: 'python' });
    expect(Object.keys(shape.packages as object).sort()).toEqual([...MANAGER_IDS].sort());
    expect(JSON.stringify(environmentDefinitionInputSchema.toJSONSchema?.() ?? {})).toContain('Python packages (pip)');
  });
});

describe('flavours a language runs on', () => {
  it('every listed flavour carries the language agent (LanguageEntry.agent)', () => {
    for (const language of LANGUAGES) for (const flavour of LANGUAGE_ENTRIES[language].flavours) expect(FLAVOUR_AGENTS[flavour]).toBe(LANGUAGE_ENTRIES[language].agent);
  });

  it('bash does not run on the node image, whose agent has no bash mode', () => {
    expect(runsOn('bash', 'node')).toBe(false);
    expect(runsOn('bash', 'python-data')).toBe(true);
    expect(runsOn('typescript', 'node')).toBe(true);
  });
});
