import { describe, expect, it } from 'vitest';
import { importedDependenciesSchema } from '../../shared/domain/environment';
import { importDependencies, MAX_IMPORT_BYTES } from './import-definition';

describe('importDependencies', () => {
  it.each([
    ['requirements.txt', 'python'],
    ['requirements-dev.txt', 'python'],
    ['C:\\proj\\Requirements_GPU.TXT', 'python'],
    ['/home/me/proj/requirements.in', 'python'],
  ])('reads %s as requirements (%s)', (fileName, language) => {
    const result = importDependencies(fileName, 'numpy==2.1.0\n-e .\n');
    expect(result).toEqual({
      language,
      packages: { pip: ['numpy==2.1.0'], npm: [] },
      unsupported: [{ line: 2, text: '-e .', reason: expect.stringMatching(/editable/) as string }],
    });
    expect(importedDependenciesSchema.parse(result)).toEqual(result);
  });

  it('reads package.json as javascript, devDependencies on request', () => {
    const content = '{"name": "app", "dependencies": {"lodash": "^4"}, "devDependencies": {"vitest": "^2"}}';
    expect(importDependencies('web/package.json', content)).toEqual({ language: 'javascript', name: 'app', packages: { pip: [], npm: ['lodash@^4'] }, unsupported: [] });
    expect(importDependencies('package.json', content, { includeDev: true }).packages.npm).toEqual(['lodash@^4', 'vitest@^2']);
  });

  it.each(['environment.yml', 'environment.yaml'])('reads %s as python', (fileName) => {
    expect(importDependencies(fileName, 'name: e\ndependencies:\n  - pip:\n    - flask\n')).toEqual({
      language: 'python',
      name: 'e',
      packages: { pip: ['flask'], npm: [] },
      unsupported: [],
    });
  });

  it('refuses unknown file names and oversized files', () => {
    expect(() => importDependencies('Pipfile', '')).toThrow(/Cannot import "Pipfile": use requirements\*\.txt/);
    expect(() => importDependencies('package-lock.json', '{}')).toThrow(/Cannot import/);
    expect(() => importDependencies('requirements.txt', 'a'.repeat(MAX_IMPORT_BYTES + 1))).toThrow(/larger than 1024 KiB/);
  });
});
