import { describe, expect, it } from 'vitest';
import { languageOfPath } from './language-of-path';

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
