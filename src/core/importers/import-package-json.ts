import { isSandpitError, SandpitError } from '../../shared/api/errors';
import type { UnsupportedEntry } from '../../shared/domain/environment';
import { parsePackageSpec } from '../installers/package-specs';

/**
 * package.json → npm packages (`name@range`). Only registry packages are installed: git, GitHub
 * shorthand, file:/link:/workspace:, URLs and aliases are reported in `unsupported`, as are ranges
 * Sandpit's npm check refuses (e.g. `^1 || ^2`). Line numbers are found by searching the text.
 */

export interface PackageJsonOptions {
  /** Import devDependencies too (after dependencies). Default false. */
  includeDev?: boolean;
}

export interface PackageJsonImport {
  name?: string;
  packages: { npm: string[] };
  unsupported: UnsupportedEntry[];
}

const ONLY_REGISTRY = 'only packages from the npm registry are supported';
const SOURCE_REASONS: Array<[RegExp, string]> = [
  [/^(?:git\+|git:|git@|github:|gitlab:|bitbucket:|gist:)/, `git and GitHub dependencies are not supported: ${ONLY_REGISTRY}`],
  [/^https?:\/\//, `URLs are not supported: ${ONLY_REGISTRY}`],
  [/^(?:file:|link:|portal:|\.{0,2}\/|~\/)|\.(?:tgz|tar\.gz)$/, `local files and folders are not supported: ${ONLY_REGISTRY}`],
  [/^workspace:/, `workspace packages are not supported: ${ONLY_REGISTRY}`],
  [/^npm:/, 'package aliases (npm:) are not supported'],
  [/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+(?:#.*)?$/, `GitHub shorthand (user/repo) is not supported: ${ONLY_REGISTRY}`],
  [/^[a-z][a-z0-9+.-]*:/, `this kind of dependency is not supported: ${ONLY_REGISTRY}`],
];

function lineAt(content: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index && i < content.length; i += 1) if (content.charCodeAt(i) === 10) line += 1;
  return line;
}

function lineText(content: string, line: number): string {
  return (content.split(/\r\n|\n|\r/)[line - 1] ?? '').trim().slice(0, 200);
}

/** The line of `"key":` inside the object that starts after `from` (best effort: JSON.parse keeps no positions). */
function lineOfKey(content: string, key: string, from: number): { line: number; index: number } {
  const pattern = new RegExp(`${JSON.stringify(key).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*:`, 'g');
  pattern.lastIndex = from;
  const match = pattern.exec(content);
  const index = match?.index ?? from;
  return { line: lineAt(content, index), index };
}

function parseJson(content: string): unknown {
  try {
    return JSON.parse(content);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const explicitLine = /\(line (\d+) column \d+\)/.exec(message)?.[1];
    const position = /position (\d+)/.exec(message)?.[1];
    const line = explicitLine !== undefined ? Number(explicitLine) : position !== undefined ? lineAt(content, Number(position)) : 1;
    const text = lineText(content, line);
    throw new SandpitError('INVALID_INPUT', `package.json is not valid JSON: line ${line} ("${text}"): ${message}`, { line, text });
  }
}

export function importPackageJson(input: string, options: PackageJsonOptions = {}): PackageJsonImport {
  const content = input.replace(/^\uFEFF/, '');
  const json = parseJson(content);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new SandpitError('INVALID_INPUT', 'package.json must hold a JSON object', { line: 1, text: lineText(content, 1) });
  }
  const manifest = json as Record<string, unknown>;
  const npm: string[] = [];
  const unsupported: UnsupportedEntry[] = [];
  const seen = new Set<string>();
  const sections = options.includeDev ? ['dependencies', 'devDependencies'] : ['dependencies'];
  for (const section of sections) {
    const dependencies = manifest[section];
    if (dependencies === undefined) continue;
    const at = lineOfKey(content, section, 0);
    if (typeof dependencies !== 'object' || dependencies === null || Array.isArray(dependencies)) {
      const text = lineText(content, at.line);
      throw new SandpitError('INVALID_INPUT', `Line ${at.line} ("${text}"): "${section}" must be an object of name → version`, { line: at.line, text });
    }
    for (const [name, range] of Object.entries(dependencies as Record<string, unknown>)) {
      const { line } = lineOfKey(content, name, at.index);
      const text = `"${name}": ${JSON.stringify(range)}`;
      if (typeof range !== 'string') {
        throw new SandpitError('INVALID_INPUT', `Line ${line} (${text}): the version of "${name}" must be a string`, { line, text });
      }
      const refuse = (reason: string): void => void unsupported.push({ line, text, reason });
      const version = range.trim();
      const source = SOURCE_REASONS.find(([pattern]) => pattern.test(version));
      if (source) {
        refuse(source[1]);
        continue;
      }
      if (seen.has(name)) {
        refuse(`"${name}" is already in dependencies: only the first is kept`);
        continue;
      }
      try {
        npm.push(parsePackageSpec(version === '' || version === '*' ? name : `${name}@${version}`, 'npm').raw);
        seen.add(name);
      } catch (error) {
        if (!isSandpitError(error, 'INVALID_INPUT')) throw error;
        refuse(`Sandpit cannot install this: ${error.message}`);
      }
    }
  }
  return { ...(typeof manifest.name === 'string' ? { name: manifest.name } : {}), packages: { npm }, unsupported };
}
