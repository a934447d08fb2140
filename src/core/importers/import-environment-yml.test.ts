import { describe, expect, it } from 'vitest';
import { isSandpitError } from '../../shared/api/errors';
import { CONDA_REASON, importEnvironmentYml } from './import-environment-yml';

const ENVIRONMENT_YML = `# Analysis environment
name: analysis
channels:
  - conda-forge
  - defaults
dependencies:
  - python=3.11
  - pip
  - numpy>=1.26   # from conda
  - conda-forge::gdal=3.8
  - "r-base"
  - pip:
    - requests==2.31.0
    - 'rich>=13'   # pretty output
    - -r requirements-extra.txt
    - "typer[all] ; python_version >= '3.8'"
    - git+https://github.com/example/pkg.git
prefix: /opt/conda/envs/analysis
`;

function invalid(content: string): { message: string; details: unknown } {
  try {
    importEnvironmentYml(content);
  } catch (error) {
    if (isSandpitError(error, 'INVALID_INPUT')) return { message: error.message, details: error.details };
    throw error;
  }
  throw new Error('expected INVALID_INPUT');
}

describe('importEnvironmentYml', () => {
  it('takes the pip part, reports conda packages, skips python and pip', () => {
    const result = importEnvironmentYml(ENVIRONMENT_YML);
    expect(result.name).toBe('analysis');
    expect(result.packages.pip).toEqual(['requests==2.31.0', 'rich>=13', 'typer[all]']);
    expect(result.unsupported).toEqual([
      { line: 9, text: 'numpy>=1.26', reason: CONDA_REASON },
      { line: 10, text: 'conda-forge::gdal=3.8', reason: CONDA_REASON },
      { line: 11, text: 'r-base', reason: CONDA_REASON },
      { line: 15, text: '-r requirements-extra.txt', reason: expect.stringMatching(/another requirements file/) as string },
      { line: 16, text: "typer[all] ; python_version >= '3.8'", reason: expect.stringMatching(/marker/) as string },
      { line: 17, text: 'git+https://github.com/example/pkg.git', reason: expect.stringMatching(/URLs/) as string },
    ]);
  });

  it('reads sequences at their key indentation, deeper pip lists, flow lists and CRLF', () => {
    const compact = 'name: "my env"\r\ndependencies:\r\n- python\r\n- pip:\r\n      - flask\r\n      - "gunicorn #not a comment"\r\n';
    expect(() => importEnvironmentYml(compact)).toThrow(/Line 6/);
    const flow = "channels: [conda-forge, 'defaults']\ndependencies: [python=3.12, pip, {pip: x}]\n";
    expect(invalid(flow).message).toMatch(/line 2 .*flow/);
    const ok = "name: 'it''s'\ndependencies:\n- pip\n- pip: [flask, 'rich>=13']\n- pip:\n  - httpx\n";
    expect(importEnvironmentYml(ok)).toEqual({ name: "it's", packages: { pip: ['flask', 'rich>=13', 'httpx'] }, unsupported: [] });
    expect(importEnvironmentYml('name: x\r\ndependencies:\r\n  - pip:\r\n      - flask\r\n').packages.pip).toEqual(['flask']);
  });

  it('accepts a file without dependencies or with an empty pip list', () => {
    expect(importEnvironmentYml('')).toEqual({ packages: { pip: [] }, unsupported: [] });
    expect(importEnvironmentYml('---\nname: empty\ndependencies:\n')).toEqual({ name: 'empty', packages: { pip: [] }, unsupported: [] });
    expect(importEnvironmentYml('dependencies:\n  - pip:\n').packages.pip).toEqual([]);
  });

  it('reports keys and nested lists Sandpit does not use', () => {
    const result = importEnvironmentYml('name: x\nvariables:\n  MY_VAR: 1\ndependencies:\n  - nodejs:\n    - x\n');
    expect(result.unsupported).toEqual([
      { line: 2, text: 'variables', reason: 'environment variables are not imported' },
      { line: 5, text: 'nodejs:', reason: 'only a "pip:" list is understood inside dependencies' },
    ]);
  });

  it.each([
    ['name: x\ndependencies:\n  - numpy\n   - scipy\n', 4, /unexpected indentation/],
    ['name: x\n\tdependencies:\n', 2, /tabs/],
    ['name: &anchor x\n', 1, /anchors/],
    ['dependencies:\n  - pip:\n    - "flask\n', 3, /unterminated/],
    ['name: x\nname: y\n', 2, /appears twice/],
    ['dependencies: numpy\n', 1, /must be a list/],
    ['just text\n', 1, /expected "key: value"/],
    ['- a\n- b\n', 1, /must be a mapping/],
    ['dependencies:\n  - pip:\n    - foo bar\n', 3, /not a valid requirement/],
    ['dependencies:\n  - pip:\n    - a: b\n', 3, /plain strings/],
  ])('names the line of %j', (content, line, why) => {
    const { message, details } = invalid(content);
    expect(message).toMatch(why);
    expect((details as { line: number }).line).toBe(line);
  });
});
