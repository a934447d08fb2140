import { describe, expect, it } from 'vitest';
import { isSandpitError } from '../../shared/api/errors';
import { importPackageJson } from './import-package-json';

const PACKAGE_JSON = `{
  "name": "chart-service",
  "version": "1.0.0",
  "scripts": { "start": "node index.js" },
  "dependencies": {
    "express": "^4.19.2",
    "@aws-sdk/client-s3": "~3.600.0",
    "lodash": "*",
    "left-pad": "",
    "my-fork": "git+https://github.com/me/my-fork.git#v2",
    "tool": "github:me/tool",
    "short": "me/short#main",
    "local": "file:../local",
    "linked": "link:./linked",
    "shared": "workspace:^",
    "tarball": "https://registry.example.com/t/-/t-1.0.0.tgz",
    "alias": "npm:lodash@^4",
    "either": "^1.0.0 || ^2.0.0"
  },
  "devDependencies": {
    "vitest": "^2.0.0",
    "express": "^4.0.0"
  }
}
`;

function invalid(content: string): { message: string; details: unknown } {
  try {
    importPackageJson(content);
  } catch (error) {
    if (isSandpitError(error, 'INVALID_INPUT')) return { message: error.message, details: error.details };
    throw error;
  }
  throw new Error('expected INVALID_INPUT');
}

describe('importPackageJson', () => {
  it('keeps registry dependencies as name@range and reports the rest with its line', () => {
    const { name, packages, unsupported } = importPackageJson(PACKAGE_JSON);
    expect(name).toBe('chart-service');
    expect(packages.npm).toEqual(['express@^4.19.2', '@aws-sdk/client-s3@~3.600.0', 'lodash', 'left-pad']);
    expect(unsupported.map((u) => [u.line, u.text, u.reason.split(':')[0]])).toEqual([
      [10, '"my-fork": "git+https://github.com/me/my-fork.git#v2"', 'git and GitHub dependencies are not supported'],
      [11, '"tool": "github:me/tool"', 'git and GitHub dependencies are not supported'],
      [12, '"short": "me/short#main"', 'GitHub shorthand (user/repo) is not supported'],
      [13, '"local": "file:../local"', 'local files and folders are not supported'],
      [14, '"linked": "link:./linked"', 'local files and folders are not supported'],
      [15, '"shared": "workspace:^"', 'workspace packages are not supported'],
      [16, '"tarball": "https://registry.example.com/t/-/t-1.0.0.tgz"', 'URLs are not supported'],
      [17, '"alias": "npm:lodash@^4"', 'package aliases (npm'],
      [18, '"either": "^1.0.0 || ^2.0.0"', 'Sandpit cannot install this'],
    ]);
  });

  it('adds devDependencies only when asked, keeping the first of a duplicate', () => {
    const { packages, unsupported } = importPackageJson(PACKAGE_JSON, { includeDev: true });
    expect(packages.npm.slice(-1)).toEqual(['vitest@^2.0.0']);
    expect(unsupported.at(-1)).toEqual({ line: 22, text: '"express": "^4.0.0"', reason: '"express" is already in dependencies: only the first is kept' });
  });

  it('accepts a manifest without dependencies', () => {
    expect(importPackageJson('{"name": 3}')).toEqual({ packages: { npm: [] }, unsupported: [] });
  });

  it('names the line of malformed JSON', () => {
    const { message, details } = invalid('{\n  "dependencies": {\n    "a": "1"\n    "b": "2"\n  }\n}\n');
    expect(message).toMatch(/^package\.json is not valid JSON: line 4 \("\\?"?b/);
    expect(details).toEqual({ line: 4, text: '"b": "2"' });
  });

  it('refuses dependencies that are not an object of strings, naming the line', () => {
    expect(invalid('{\n  "dependencies": ["a"]\n}').message).toMatch(/^Line 2 \("\\?"?dependencies.*must be an object/);
    const { message, details } = invalid('{\n  "dependencies": {\n    "a": 1\n  }\n}');
    expect(message).toBe('Line 3 ("a": 1): the version of "a" must be a string');
    expect(details).toEqual({ line: 3, text: '"a": 1' });
    expect(invalid('[1, 2]').message).toMatch(/must hold a JSON object/);
  });
});
