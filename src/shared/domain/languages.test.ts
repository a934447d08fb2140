import { describe, expect, it } from 'vitest';
import { LANGUAGES, LANGUAGE_ENTRIES, languageOfPath, languagesOf, packageManagerOf } from './languages';

describe('languageOfPath', () => {
  it.each([
    ['job.py', 'python'],
    ['/workspace/src/JOB.PY', 'python'],
    ['a.js', 'javascript'],
    ['a.mjs', 'javascript'],
    ['a.cjs', 'javascript'],
    ['build.sh', 'bash'],
    ['/workspace/run.bash', 'bash'],
    ['setup.SH', 'bash'],
  ])('runs %s in a %s session', (path, language) => {
    expect(languageOfPath(path)).toBe(language);
  });

  it.each(['notes.txt', 'Makefile', 'x.pyc', 'x.json', 'sh', 'a.sh.txt'])('has no language for %s', (path) => {
    expect(languageOfPath(path)).toBeUndefined();
  });
});

describe('the language registry', () => {
  it('has one entry per language, under its own id', () => {
    expect(Object.keys(LANGUAGE_ENTRIES).sort()).toEqual([...LANGUAGES].sort());
    for (const language of LANGUAGES) expect(LANGUAGE_ENTRIES[language].id).toBe(language);
  });

  it('gives every extension to exactly one language', () => {
    const all = LANGUAGES.flatMap((l) => LANGUAGE_ENTRIES[l].extensions);
    expect(new Set(all).size).toBe(all.length);
  });

  it('installs pip packages in python and bash sessions, npm packages in javascript ones', () => {
    expect(packageManagerOf('javascript')).toBe('npm');
    expect(languagesOf('pip')).toEqual(['python', 'bash']);
  });
});
