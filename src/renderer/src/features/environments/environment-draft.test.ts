import { describe, expect, it } from 'vitest';
import { addChip } from './chip-input';
import { draftLimits, emptyDraft, invalidChip, toCreateInput, toPatch, withLanguage } from './environment-draft';
import { draftFromImport } from './import-dialog';

describe('environment drafts', () => {
  it('sends only the installer that fits the language, and the limits typed', () => {
    const draft = {
      ...emptyDraft('javascript'),
      name: ' Web ',
      pip: ['numpy'],
      npm: ['lodash@4'],
      apt: ['jq'],
      memoryMb: '1024',
      timeoutSeconds: '1.5',
    };
    const limits = draftLimits(draft);
    expect(limits).toEqual({ memoryMb: 1024, timeoutMs: 1_500 });
    if ('invalid' in limits) throw new Error(limits.invalid);
    expect(toCreateInput(draft, limits)).toEqual({
      name: 'Web',
      language: 'javascript',
      base: 'node',
      packages: { pip: [], npm: ['lodash@4'], apt: ['jq'], cran: [] },
      network: 'none',
      limits: { memoryMb: 1024, timeoutMs: 1_500 },
    });
    expect(toPatch({ ...draft, description: '' }, {}).description).toBe('');
  });

  it('sends the folders of this computer, trimmed, and [] in a change that removed them all', () => {
    const draft = { ...emptyDraft('python'), name: 'Data', folders: [{ hostPath: ' ~/data ', mode: 'rw' as const, mountPath: ' ' }] };
    expect(toCreateInput(draft, {}).folders).toEqual([{ hostPath: '~/data', mode: 'rw' }]);
    expect(toCreateInput({ ...draft, folders: [] }, {}).folders).toBeUndefined();
    expect(toPatch({ ...draft, folders: [] }, {}).folders).toEqual([]);
  });

  it('refuses limits that are not positive numbers', () => {
    expect(draftLimits({ ...emptyDraft(), cpus: 'two' })).toEqual({
      invalid: 'Processor cores must be a positive number.',
    });
    expect(draftLimits({ ...emptyDraft(), memoryMb: '-1' })).toMatchObject({
      invalid: expect.stringMatching(/Memory/) as unknown,
    });
  });

  it('keeps the base when the new language runs on it', () => {
    const data = { ...emptyDraft('python'), base: 'python-data' as const };
    expect(withLanguage(data, 'bash').base).toBe('python-data');
    expect(withLanguage(data, 'javascript').base).toBe('node');
  });

  it('finds the chip the server refused, by name or by schema path', () => {
    const draft = { pip: ['requests', 'bad name'], npm: [], apt: ['jq', 'Bad_Apt'], cran: [] };
    expect(invalidChip(draft, '"bad name" is not a valid pip package', { package: 'bad name' })).toEqual({
      installer: 'pip',
      value: 'bad name',
    });
    expect(invalidChip(draft, 'Invalid definition: packages.apt.1: apt package names are …', undefined)).toEqual({
      installer: 'apt',
      value: 'Bad_Apt',
    });
    expect(invalidChip(draft, 'name: too long', undefined)).toBeUndefined();
  });

  it('adds a chip once, trimmed', () => {
    expect(addChip(['a'], ' b ')).toEqual({ chips: ['a', 'b'] });
    expect(addChip(['a'], 'a').problem).toMatch(/already/);
    expect(addChip(['a'], '  ').chips).toEqual(['a']);
  });

  it('turns an import into a draft with notes for the lines left out', () => {
    const { draft, notes } = draftFromImport(
      {
        language: 'python',
        packages: { pip: ['numpy'], npm: [] },
        unsupported: [{ line: 3, text: '-e .', reason: 'editable installs are not supported' }],
      },
      'requirements.txt',
    );
    expect(draft).toMatchObject({ name: 'requirements', language: 'python', pip: ['numpy'] });
    expect(notes).toEqual(['Line 3: -e . — editable installs are not supported']);
  });

  it('sends the allowed hosts it lists: an edit that removes the last one sends an empty list, so it is taken back', () => {
    const draft = { ...emptyDraft('python'), name: 'Downloads', network: 'packages' as const, allowedHosts: ['files.example.org'] };
    expect(toCreateInput(draft, {}).allowedHosts).toEqual(['files.example.org']);
    expect(toCreateInput({ ...draft, allowedHosts: [] }, {}).allowedHosts).toBeUndefined();
    expect(toPatch({ ...draft, allowedHosts: [] }, {}).allowedHosts).toEqual([]);
  });
});
