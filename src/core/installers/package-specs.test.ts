import { describe, expect, it } from 'vitest';
import { isSandpitError } from '../../shared/api/errors';
import { parsePackageSpec } from './package-specs';

describe('package specs', () => {
  it.each([
    ['numpy', 'numpy'],
    ['numpy==2.1.0', 'numpy'],
    ['requests[socks]>=2.0,<3', 'requests'],
    ['Pillow', 'Pillow'],
    ['typing_extensions~=4.0', 'typing_extensions'],
    ['numpy >= 1.26', 'numpy'],
  ])('accepts the pip spec %s', (spec, name) => {
    expect(parsePackageSpec(spec, 'pip').name).toBe(name);
  });

  it.each(['numpy; rm -rf /', 'numpy && curl x', '--index-url=http://x', '-r requirements.txt', 'git+https://example.invalid/x.git', 'pkg @ file:///etc', '../x', 'a b', '$(id)', '`id`', ''])(
    'refuses the pip spec %j with INVALID_INPUT naming it',
    (spec) => {
      let error: unknown;
      try {
        parsePackageSpec(spec, 'pip');
      } catch (e) {
        error = e;
      }
      expect(isSandpitError(error, 'INVALID_INPUT')).toBe(true);
      expect((error as Error).message).toContain(`"${spec}"`);
    },
  );

  it.each([
    ['lodash', 'lodash'],
    ['lodash@4.17.21', 'lodash'],
    ['@scope/pkg@^1.2', '@scope/pkg'],
  ])('accepts the npm spec %s', (spec, name) => {
    expect(parsePackageSpec(spec, 'npm').name).toBe(name);
  });

  it.each(['lodash; rm -rf /', '--registry=http://x', 'Lodash', '../x', 'a$(id)'])('refuses the npm spec %j', (spec) => {
    expect(() => parsePackageSpec(spec, 'npm')).toThrow(/not a valid npm package/);
  });
});
