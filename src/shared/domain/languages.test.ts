import { describe, expect, it } from 'vitest';
import { FLAVOURS, FLAVOUR_AGENTS, FLAVOUR_ENTRIES, LANGUAGES, LANGUAGE_ENTRIES, PRESET_IDS, languageOfPath, languagesOf, languageLabel, packageManagerOf, presetBlurb, runsOn, withArticle } from './languages';

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
    ['analysis.R', 'r'],
    ['/workspace/plots/draw.r', 'r'],
  ])('runs %s in a %s session', (path, language) => {
    expect(languageOfPath(path)).toBe(language);
  });

  it.each(['notes.txt', 'Makefile', 'x.pyc', 'x.json', 'sh', 'a.sh.txt', 'x.Rmd', 'x.rds', 'R'])('has no language for %s', (path) => {
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

  it('installs pip packages in python and bash sessions, npm packages in javascript ones, CRAN packages in R ones', () => {
    expect(packageManagerOf('javascript')).toBe('npm');
    expect(languagesOf('cran')).toEqual(['r']);
    expect(languagesOf('pip')).toEqual(['python', 'bash']);
  });
});

describe('what the registry gives the rest of Sandpit', () => {
  it('lists the built-in environments in the order a person meets them, each flavour preset after its language', () => {
    expect(PRESET_IDS).toEqual(['python', 'python-data', 'node', 'bash', 'typescript', 'r']);
    expect(presetBlurb('python-data')).toBe('Python with numpy, pandas and matplotlib, for tables, data and charts.');
    expect(presetBlurb('node')).toBe('JavaScript (Node.js), for JavaScript code.');
    expect(presetBlurb('my-own')).toBeUndefined();
  });

  it('runs every language on each flavour it lists, whose image carries its agent', () => {
    for (const language of LANGUAGES) {
      for (const flavour of LANGUAGE_ENTRIES[language].flavours) expect(runsOn(language, flavour), `${language} on ${flavour}`).toBe(true);
    }
    expect(runsOn('bash', 'node')).toBe(false);
    expect(runsOn('r', 'python')).toBe(false);
    expect(runsOn('python', 'r')).toBe(false);
    expect(FLAVOURS.every((f) => FLAVOUR_AGENTS[f] === FLAVOUR_ENTRIES[f].agent)).toBe(true);
  });

  it('gives every language a notebook kernel, a greeting and a preset of its own name', () => {
    for (const language of LANGUAGES) {
      const entry = LANGUAGE_ENTRIES[language];
      expect(entry.notebook.kernelspec.name.length).toBeGreaterThan(0);
      expect(entry.greeting.length).toBeGreaterThan(0);
      expect(entry.preset.blurb.endsWith('.')).toBe(true);
    }
  });
});

describe('withArticle', () => {
  it('says a language as a person does', () => {
    expect(LANGUAGES.map((l) => withArticle(languageLabel(l)))).toEqual(['a Python', 'a JavaScript', 'a Bash', 'a TypeScript', 'an R']);
    expect(withArticle('Elixir')).toBe('an Elixir');
  });
});
