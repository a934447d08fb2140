import { describe, expect, it } from 'vitest';
import type { EnvironmentView } from '../../../../shared/domain/environment';
import { affectedPackages } from './environment-words';

const failed = (base: EnvironmentView['base'], affected: string[]): Pick<EnvironmentView, 'base' | 'build'> =>
  ({ base, build: { state: 'failed', diagnosis: { cause: 'not-found', summary: 'x', fixes: [], affected } } }) as unknown as Pick<EnvironmentView, 'base' | 'build'>;

describe('a failed build, in words', () => {
  it('names only the packages the base does not already bring', () => {
    expect(affectedPackages(failed('python-data', ['pandas', 'matplotlib==3.8', 'pandsa']))).toEqual(['pandsa']);
    expect(affectedPackages(failed('python', ['pandas', 'pandsa']))).toEqual(['pandas', 'pandsa']);
  });

  it('names them all when every one comes with the base', () => {
    expect(affectedPackages(failed('python-data', ['numpy', 'pandas']))).toEqual(['numpy', 'pandas']);
  });
});
