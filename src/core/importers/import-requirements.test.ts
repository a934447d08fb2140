import { describe, expect, it } from 'vitest';
import { isSandpitError } from '../../shared/api/errors';
import { evaluateMarker, importRequirements, requirementLines } from './import-requirements';

function invalid(content: string): { message: string; details: unknown } {
  try {
    importRequirements(content);
  } catch (error) {
    if (isSandpitError(error, 'INVALID_INPUT')) return { message: error.message, details: error.details };
    throw error;
  }
  throw new Error('expected INVALID_INPUT');
}

const REQUIREMENTS = `# Data pipeline
-r base.txt
-c constraints.txt
--index-url https://pypi.example.com/simple

numpy==1.26.4          # pinned for the model
pandas>=2.0,<3
requests[socks, security] >= 2.31
scikit-learn ~= 1.4 ; python_version >= "3.9"
pywin32==306; sys_platform == "win32"
tomli; python_version < "3.11"
uvloop ; platform_machine == "x86_64"
-e git+https://github.com/example/tool.git#egg=tool
git+https://github.com/example/lib.git@v1.0#egg=lib
https://files.example.com/pkg-1.0.tar.gz
./vendor/local_pkg
../wheels/thing-1.0-py3-none-any.whl
mylib @ https://example.com/mylib-1.0.zip
matplotlib \\
    >=3.8
certifi==2024.2.2 \\
    --hash=sha256:0569859f95fc761b18b45ef421b1290a0f65f147e92a1e5eb3e635f9a5e4e66f \\
    --hash=sha256:dc16dc4ff2c81d7a3f4c4ec7df1c9e47d6c3b21d0e5b4ab8e6d05bd11c8b5c5d
    # via requests
Flask (>=3.0)
NumPy>=2
`;

describe('importRequirements', () => {
  it('keeps registry requirements and reports everything else with its line', () => {
    const { packages, unsupported } = importRequirements(REQUIREMENTS);
    expect(packages.pip).toEqual([
      'numpy==1.26.4',
      'pandas>=2.0,<3',
      'requests[socks,security]>=2.31',
      'scikit-learn~=1.4',
      'uvloop',
      'matplotlib>=3.8',
      'certifi==2024.2.2',
      'Flask>=3.0',
    ]);
    const expected: Record<number, RegExp> = {
      2: /includes another requirements file/,
      3: /constraints files/,
      4: /package indexes are a Sandpit setting/,
      9: /marker "python_version >= "3.9"" is not kept/,
      10: /marker "sys_platform == "win32"" does not hold .*not installed/,
      11: /marker "python_version < "3.11"" does not hold/,
      12: /marker "platform_machine == "x86_64"" is not kept/,
      13: /editable installs/,
      14: /URLs and version-control links/,
      15: /URLs/,
      16: /local files and folders/,
      17: /local files and folders/,
      18: /direct references/,
      21: /hashes are not checked/,
      26: /"NumPy" is already required on line 6/,
    };
    expect(unsupported.map((u) => u.line)).toEqual(Object.keys(expected).map(Number));
    for (const { line, reason } of unsupported) expect(reason).toMatch(expected[line]!);
    expect(unsupported.find((u) => u.line === 13)?.text).toBe('-e git+https://github.com/example/tool.git#egg=tool');
    expect(unsupported.find((u) => u.line === 21)?.text).toMatch(/^certifi==2024\.2\.2 +--hash=sha256:0569/);
  });

  it('joins continuations, drops comments and blank lines, numbers by the first physical line', () => {
    expect(requirementLines('\uFEFFa \\\r\n  >=1\r\n\r\n# c\r\nb # note\nc#d\n  \\\n')).toEqual([
      { line: 1, text: 'a   >=1' },
      { line: 5, text: 'b' },
      { line: 6, text: 'c#d' },
    ]);
    expect(requirementLines('x \\\n# comment ends it\ny')).toEqual([
      { line: 1, text: 'x' },
      { line: 3, text: 'y' },
    ]);
  });

  it('returns nothing for an empty or comment-only file', () => {
    expect(importRequirements('')).toEqual({ packages: { pip: [] }, unsupported: [] });
    expect(importRequirements('# nothing\n\n')).toEqual({ packages: { pip: [] }, unsupported: [] });
  });

  it.each([
    ['numpy\nfoo bar\n', 2, 'foo bar'],
    ['\n\nnumpy==\n', 3, 'numpy=='],
    ['a\nb\\\n c d\n', 2, 'b c d'],
    ['x; \n', 1, 'x;'],
    ['<html>\n', 1, '<html>'],
  ])('names the line of a malformed requirement in %j', (content, line, text) => {
    const { message, details } = invalid(content);
    expect(message).toContain(`Line ${line} ("${text}")`);
    expect(details).toEqual({ line, text });
  });

  it('reports environment variables instead of passing them through', () => {
    expect(importRequirements('torch==${TORCH_VERSION}\n').unsupported).toEqual([
      { line: 1, text: 'torch==${TORCH_VERSION}', reason: 'environment variables in requirements are not expanded' },
    ]);
  });
});

describe('evaluateMarker', () => {
  it.each([
    ['sys_platform == "win32"', false],
    ['sys_platform == "linux"', true],
    ['"linux" == sys_platform', true],
    ["platform_system == 'Windows' or os_name == 'nt'", false],
    ['platform_system != "Darwin" and python_version >= "3.8"', true],
    ['python_version < "3.8"', false],
    ['python_version<"3.12"', undefined],
    ['python_version ~= "3.8"', true],
    ['python_version >= "3.11" and (sys_platform == "linux" or sys_platform == "darwin")', true],
    ['platform_machine == "x86_64"', undefined],
    ['platform_machine == "x86_64" and sys_platform == "win32"', false],
    ['extra == "dev" or sys_platform == "linux"', true],
    ['implementation_name == "pypy"', false],
    ['sys_platform in "linux darwin"', true],
    ['garbage ===', undefined],
    ['sys_platform == "linux" )', undefined],
  ])('%s → %s', (marker, expected) => {
    expect(evaluateMarker(marker)).toBe(expected);
  });
});
