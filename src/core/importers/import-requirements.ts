import { isSandpitError, SandpitError } from '../../shared/api/errors';
import type { UnsupportedEntry } from '../../shared/domain/environment';
import { parsePackageSpec } from '../installers/package-specs';

/**
 * requirements.txt → pip packages. Sandpit installs registry packages by name and version only, so
 * everything else (includes, constraints, editables, index options, URLs, local paths) is reported
 * in `unsupported` with a reason, never dropped silently.
 *
 * Environment markers (`pkg; sys_platform == "win32"`): the requirement is kept without its marker
 * and the marker is reported, unless the marker surely does not hold in a Sandpit container
 * (Linux, CPython 3.11 or 3.12) — then the requirement is left out and reported as such. Markers
 * that cannot be decided (machine, full version, extras) count as holding.
 */

export interface RequirementLine {
  /** 1-based number of the (first) physical line. */
  line: number;
  text: string;
}

export interface RequirementsImport {
  packages: { pip: string[] };
  unsupported: UnsupportedEntry[];
}

const COMMENT = /(^|\s+)#.*$/;
const OPTION_REASONS: Array<[RegExp, string]> = [
  [/^(?:-r|--requirement(?![\w-]))/, 'includes another requirements file: import that file separately'],
  [/^(?:-c|--constraint(?![\w-]))/, 'constraints files are not supported'],
  [/^(?:-e|--editable(?![\w-]))/, 'editable installs (local folders, version control) are not supported'],
  [
    /^(?:-i|-f|--index-url|--extra-index-url|--no-index|--find-links|--trusted-host)(?![\w-])/,
    'package indexes are a Sandpit setting, not part of an environment',
  ],
  [/^-/, 'pip options are not supported'],
];
const URL = /^(?:[A-Za-z][A-Za-z0-9+.-]*:\/\/|(?:git|hg|svn|bzr)\+)/;
const LOCAL_PATH = /^(?:\.{1,2}(?:[\\/]|$)|[\\/~]|[A-Za-z]:[\\/])|\.(?:whl|zip|tar\.gz|tgz|tar\.bz2)$/i;
const DIRECT_REFERENCE = /^[A-Za-z0-9][A-Za-z0-9._-]*\s*(?:\[[^\]]*\])?\s*@/;
const ONLY_INDEX = 'only packages from the package index are supported';

/** Physical lines → logical lines: `\` continuations joined, comments and blank lines removed (as pip reads them). */
export function requirementLines(content: string): RequirementLine[] {
  const lines: RequirementLine[] = [];
  let pending: string[] = [];
  let start = 0;
  const physical = content.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  physical.forEach((raw, index) => {
    if (pending.length === 0) start = index + 1;
    const isComment = /^\s*#/.test(raw);
    if (raw.endsWith('\\') && !isComment) {
      pending.push(raw.slice(0, -1));
      if (index < physical.length - 1) return;
    } else {
      pending.push(isComment ? ` ${raw}` : raw);
    }
    const text = pending.join('').replace(COMMENT, '').trim();
    pending = [];
    if (text !== '') lines.push({ line: start, text });
  });
  return lines;
}

/** Turns logical requirement lines into pip specs and reasons (shared with environment.yml's pip part). */
export function importRequirementLines(lines: RequirementLine[]): RequirementsImport {
  const pip: string[] = [];
  const unsupported: UnsupportedEntry[] = [];
  const firstLine = new Map<string, number>();
  for (const { line, text } of lines) {
    const refuse = (reason: string): void => void unsupported.push({ line, text, reason });
    const option = OPTION_REASONS.find(([pattern]) => pattern.test(text));
    if (option) refuse(option[1]);
    else if (URL.test(text)) refuse(`URLs and version-control links are not supported: ${ONLY_INDEX}`);
    else if (DIRECT_REFERENCE.test(text)) refuse(`direct references ("name @ url") are not supported: ${ONLY_INDEX}`);
    else if (LOCAL_PATH.test(text)) refuse(`local files and folders are not supported: ${ONLY_INDEX}`);
    else if (text.includes('${')) refuse('environment variables in requirements are not expanded');
    else {
      const requirement = readRequirement(text, line);
      if (requirement.marker !== undefined) {
        const holds = evaluateMarker(requirement.marker);
        refuse(
          holds === false
            ? `environment marker "${requirement.marker}" does not hold in Sandpit (Linux, Python 3.11/3.12): not installed`
            : `environment marker "${requirement.marker}" is not kept: the requirement is installed unconditionally`,
        );
        if (holds === false) continue;
      }
      if (requirement.options !== undefined) {
        refuse(
          /^(?:--hash=\S+\s*)+$/.test(requirement.options)
            ? 'hashes are not checked (--hash ignored); the requirement is kept'
            : `per-requirement pip options are ignored (${requirement.options}); the requirement is kept`,
        );
      }
      const key = requirement.name.toLowerCase().replace(/[-_.]+/g, '-');
      const earlier = firstLine.get(key);
      if (earlier !== undefined) {
        refuse(`"${requirement.name}" is already required on line ${earlier}: only the first is kept`);
        continue;
      }
      firstLine.set(key, line);
      pip.push(requirement.spec);
    }
  }
  return { packages: { pip }, unsupported };
}

/** Parses requirements.txt content; throws INVALID_INPUT naming the line of a malformed requirement. */
export function importRequirements(content: string): RequirementsImport {
  return importRequirementLines(requirementLines(content));
}

interface Requirement {
  spec: string;
  name: string;
  marker?: string;
  options?: string;
}

function readRequirement(text: string, line: number): Requirement {
  // pip-compile writes `pkg==1 ; marker --hash=…`: options come last, after any marker.
  const optionAt = text.search(/\s-{1,2}[A-Za-z]/);
  const options = optionAt === -1 ? undefined : text.slice(optionAt).trim();
  const withMarker = optionAt === -1 ? text : text.slice(0, optionAt);
  const semicolon = withMarker.indexOf(';');
  const requirement = semicolon === -1 ? withMarker : withMarker.slice(0, semicolon);
  const marker = semicolon === -1 ? undefined : withMarker.slice(semicolon + 1).trim();
  // Old-style "name (>=1.0)" and spaces around extras are valid PEP 508.
  const normalised = requirement
    .trim()
    .replace(/^([^\s(]+)\s*\((.*)\)$/, '$1$2')
    .replace(/\s*\[\s*/, '[')
    .replace(/\s*\]/, ']')
    .replace(/\[([^\]]*)\]/, (extras: string) => extras.replace(/\s+/g, ''));
  try {
    if (marker === '') throw new SandpitError('INVALID_INPUT', 'the environment marker after ";" is empty');
    const { raw, name } = parsePackageSpec(normalised, 'pip');
    return { spec: raw, name, ...(marker === undefined ? {} : { marker }), ...(options === undefined ? {} : { options }) };
  } catch (error) {
    if (!isSandpitError(error, 'INVALID_INPUT')) throw error;
    throw new SandpitError('INVALID_INPUT', `Line ${line} ("${text}") is not a valid requirement: ${error.message}`, { line, text });
  }
}

// ---- environment markers (PEP 508), three-valued: true, false or undefined (cannot tell) ----

type Truth = boolean | undefined;
type Facts = Record<string, string>;

/** What is known inside a Sandpit container; python_version differs between the bases. */
const CANDIDATE_FACTS: Facts[] = ['3.11', '3.12'].map((pythonVersion) => ({
  python_version: pythonVersion,
  sys_platform: 'linux',
  platform_system: 'Linux',
  os_name: 'posix',
  platform_python_implementation: 'CPython',
  implementation_name: 'cpython',
}));
const VERSION_VARIABLES = new Set(['python_version']);
const TOKEN = /\s*(\(|\)|===|==|!=|<=|>=|~=|<|>|not\s+in(?![\w.])|in(?![\w.])|and(?![\w.])|or(?![\w.])|"[^"]*"|'[^']*'|[A-Za-z_][A-Za-z0-9_.]*)/y;

export function evaluateMarker(marker: string): Truth {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < marker.length) {
    const start = TOKEN.lastIndex;
    const match = TOKEN.exec(marker);
    if (match?.[1] === undefined) return marker.slice(start).trim() === '' ? combineAll(tokens) : undefined;
    tokens.push(match[1].replace(/\s+/g, ' '));
  }
  return combineAll(tokens);
}

function combineAll(tokens: string[]): Truth {
  const results = CANDIDATE_FACTS.map((facts) => new MarkerParser(tokens, facts).parse());
  return results.every((r) => r === true) ? true : results.every((r) => r === false) ? false : undefined;
}

class MarkerParser {
  private at = 0;
  private broken = false;

  constructor(
    private readonly tokens: string[],
    private readonly facts: Facts,
  ) {}

  parse(): Truth {
    const value = this.or();
    return this.broken || this.at !== this.tokens.length ? undefined : value;
  }

  private or(): Truth {
    let value = this.and();
    while (this.tokens[this.at] === 'or') {
      this.at += 1;
      const right = this.and();
      value = value === true || right === true ? true : value === false && right === false ? false : undefined;
    }
    return value;
  }

  private and(): Truth {
    let value = this.atom();
    while (this.tokens[this.at] === 'and') {
      this.at += 1;
      const right = this.atom();
      value = value === false || right === false ? false : value === true && right === true ? true : undefined;
    }
    return value;
  }

  private atom(): Truth {
    if (this.tokens[this.at] === '(') {
      this.at += 1;
      const value = this.or();
      if (this.tokens[this.at] !== ')') this.broken = true;
      this.at += 1;
      return value;
    }
    const [left, op, right] = this.tokens.slice(this.at, this.at + 3);
    this.at += 3;
    if (left === undefined || op === undefined || right === undefined) {
      this.broken = true;
      return undefined;
    }
    const isVersion = VERSION_VARIABLES.has(left) || VERSION_VARIABLES.has(right);
    const a = this.value(left);
    const b = this.value(right);
    if (a === undefined || b === undefined) return undefined;
    return isVersion ? compareVersions(a, op, b) : compareStrings(a, op, b);
  }

  private value(token: string): string | undefined {
    if (/^["']/.test(token)) return token.slice(1, -1);
    return this.facts[token];
  }
}

function compareStrings(a: string, op: string, b: string): Truth {
  if (op === '==' || op === '===') return a === b;
  if (op === '!=') return a !== b;
  if (op === 'in') return b.includes(a);
  if (op === 'not in') return !b.includes(a);
  return undefined;
}

function compareVersions(a: string, op: string, b: string): Truth {
  if (op === 'in' || op === 'not in') return compareStrings(a, op, b);
  const parse = (v: string): number[] | undefined => (/^\d+(?:\.\d+)*$/.test(v) ? v.split('.').map(Number) : undefined);
  const x = parse(a);
  const y = parse(b);
  if (x === undefined || y === undefined) return undefined;
  const length = Math.max(x.length, y.length);
  let order = 0;
  for (let i = 0; i < length && order === 0; i += 1) order = Math.sign((x[i] ?? 0) - (y[i] ?? 0));
  switch (op) {
    case '==':
    case '===':
      return order === 0;
    case '!=':
      return order !== 0;
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    case '>=':
      return order >= 0;
    case '~=':
      return y.length >= 2 && order >= 0 && y.slice(0, -1).every((part, i) => x[i] === part);
    default:
      return undefined;
  }
}
