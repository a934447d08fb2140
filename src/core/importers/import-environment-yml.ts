import { SandpitError } from '../../shared/api/errors';
import type { UnsupportedEntry } from '../../shared/domain/environment';
import { importRequirementLines } from './import-requirements';
import type { RequirementLine } from './import-requirements';

/**
 * conda environment.yml → pip packages. Only the `- pip:` part is installed (read like
 * requirements.txt lines); other dependencies are conda packages and reported, except `python`
 * and `pip`, which every Python base has. The YAML reader covers what these files use: block
 * mappings and sequences (also a sequence at its key's indentation), `- key:` items, one-line flow
 * sequences, quoted and plain scalars, comments. Anchors, tags, block scalars and flow mappings
 * are refused with the line.
 */

export interface EnvironmentYmlImport {
  name?: string;
  packages: { pip: string[] };
  unsupported: UnsupportedEntry[];
}

export const CONDA_REASON = 'conda package — Sandpit installs pip packages only';
const BASE_PACKAGES = new Set(['python', 'pip']);

type YamlNode =
  | { kind: 'empty'; line: number }
  | { kind: 'scalar'; value: string; line: number }
  | { kind: 'seq'; items: YamlNode[]; line: number }
  | { kind: 'map'; entries: Array<{ key: string; value: YamlNode; line: number }>; line: number };

interface YamlLine {
  line: number;
  indent: number;
  content: string;
}

function fail(line: number, text: string, why: string): never {
  throw new SandpitError('INVALID_INPUT', `environment.yml line ${line} ("${text.trim().slice(0, 200)}"): ${why}`, { line, text: text.trim() });
}

/** Cuts a comment (`#` at the start or after a space, outside quotes). */
function stripComment(raw: string): string {
  let quote: string | undefined;
  for (let i = 0; i < raw.length; i += 1) {
    const c = raw[i]!;
    const before = i === 0 ? ' ' : raw[i - 1]!;
    if (quote === '"' && c === '\\') i += 1;
    else if (quote !== undefined && c === quote) quote = undefined;
    else if (quote === undefined && (c === '"' || c === "'") && /[\s[,:-]/.test(before)) quote = c;
    else if (quote === undefined && c === '#' && /\s/.test(before)) return raw.slice(0, i);
  }
  return raw;
}

function toLines(content: string): YamlLine[] {
  const lines: YamlLine[] = [];
  content
    .replace(/^\uFEFF/, '')
    .split(/\r\n|\n|\r/)
    .forEach((raw, index) => {
      const line = index + 1;
      const text = stripComment(raw).trimEnd();
      if (text.trim() === '' || /^(?:---|\.\.\.)$/.test(text)) return;
      const indent = /^ */.exec(text)![0].length;
      if (text[indent] === '\t') fail(line, raw, 'tabs cannot indent YAML');
      if (text.startsWith('%')) fail(line, raw, 'YAML directives are not supported');
      lines.push({ line, indent, content: text.slice(indent) });
    });
  return lines;
}

const isSeqItem = (content: string): boolean => content === '-' || content.startsWith('- ');
const KEY = /^(?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s"'[\]{}#&*!|>%@`,?-][^:]*?|-[^\s:][^:]*?)\s*:(?:\s|$)/;

class YamlReader {
  private at = 0;

  constructor(private readonly lines: YamlLine[]) {}

  read(): YamlNode {
    const first = this.lines[0];
    if (first === undefined) return { kind: 'empty', line: 1 };
    const root = this.block(first.indent);
    const extra = this.lines[this.at];
    if (extra !== undefined) fail(extra.line, extra.content, 'unexpected indentation');
    return root;
  }

  private block(indent: number): YamlNode {
    const line = this.lines[this.at]!;
    return isSeqItem(line.content) ? this.sequence(indent) : this.mapping(indent);
  }

  private sequence(indent: number): YamlNode {
    const items: YamlNode[] = [];
    const start = this.lines[this.at]!.line;
    for (let l = this.lines[this.at]; l !== undefined && l.indent === indent && isSeqItem(l.content); l = this.lines[this.at]) {
      const rest = l.content.slice(1).trimStart();
      const column = indent + l.content.length - rest.length;
      if (rest === '') {
        this.at += 1;
        const next = this.lines[this.at];
        items.push(next !== undefined && next.indent > indent ? this.block(next.indent) : { kind: 'empty', line: l.line });
      } else if (isSeqItem(rest) || KEY.test(rest)) {
        // `- key: value` / `- - x`: the rest is a block that starts at its own column.
        this.lines[this.at] = { line: l.line, indent: column, content: rest };
        items.push(this.block(column));
      } else {
        this.at += 1;
        items.push(inlineValue(rest, l.line));
      }
    }
    return { kind: 'seq', items, line: start };
  }

  private mapping(indent: number): YamlNode {
    const entries: Array<{ key: string; value: YamlNode; line: number }> = [];
    const start = this.lines[this.at]!.line;
    for (let l = this.lines[this.at]; l !== undefined && l.indent === indent && !isSeqItem(l.content); l = this.lines[this.at]) {
      const match = KEY.exec(l.content);
      if (match === null) fail(l.line, l.content, 'expected "key: value"');
      const rawKey = match[0].replace(/\s*:\s*$/, '');
      const key = /^["']/.test(rawKey) ? scalar(rawKey, l.line) : rawKey;
      const rest = l.content.slice(match[0].length).trim();
      if (entries.some((entry) => entry.key === key)) fail(l.line, l.content, `"${key}" appears twice`);
      this.at += 1;
      let value: YamlNode;
      const next = this.lines[this.at];
      if (rest !== '') value = inlineValue(rest, l.line);
      else if (next !== undefined && next.indent > indent) value = this.block(next.indent);
      else if (next !== undefined && next.indent === indent && isSeqItem(next.content)) value = this.sequence(indent);
      else value = { kind: 'empty', line: l.line };
      entries.push({ key, value, line: l.line });
    }
    return { kind: 'map', entries, line: start };
  }
}

function inlineValue(text: string, line: number): YamlNode {
  if (text === '{}') return { kind: 'map', entries: [], line };
  if (/^[&*!|>{]/.test(text)) fail(line, text, 'anchors, aliases, tags, block scalars and flow mappings are not supported');
  if (!text.startsWith('[')) return { kind: 'scalar', value: scalar(text, line), line };
  if (!text.endsWith(']')) fail(line, text, 'a flow sequence must end on the same line');
  const body = text.slice(1, -1);
  const items: YamlNode[] = [];
  let quote: string | undefined;
  let current = '';
  for (let i = 0; i <= body.length; i += 1) {
    const c = body[i];
    if (c === undefined || (c === ',' && quote === undefined)) {
      if (current.trim() !== '') items.push({ kind: 'scalar', value: scalar(current.trim(), line), line });
      else if (c !== undefined) fail(line, text, 'empty item in a flow sequence');
      current = '';
      continue;
    }
    if (quote === undefined && (c === '[' || c === '{')) fail(line, text, 'nested flow collections are not supported');
    if (quote === '"' && c === '\\') current += c + (body[(i += 1)] ?? '');
    else {
      if (quote === undefined && (c === '"' || c === "'") && current.trim() === '') quote = c;
      else if (c === quote) quote = undefined;
      current += c;
    }
  }
  return { kind: 'seq', items, line };
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', '"': '"', '\\': '\\', '/': '/', '0': '\0' };

function scalar(text: string, line: number): string {
  if (text.startsWith('"')) {
    const match = /^"((?:[^"\\]|\\.)*)"$/.exec(text);
    if (match === null) fail(line, text, 'unterminated or malformed "quoted" string');
    return match[1]!.replace(/\\(.)/g, (_all: string, c: string) => ESCAPES[c] ?? c);
  }
  if (text.startsWith("'")) {
    const match = /^'((?:[^']|'')*)'$/.exec(text);
    if (match === null) fail(line, text, "unterminated or malformed 'quoted' string");
    return match[1]!.replace(/''/g, "'");
  }
  return text;
}

/** The package name of a conda spec: `conda-forge::numpy>=1.26=py312*` → numpy. */
function condaName(spec: string): string {
  return (spec.split('::').pop() ?? spec).split(/[\s=<>!~[]/)[0]!.toLowerCase();
}

export function importEnvironmentYml(content: string): EnvironmentYmlImport {
  const root = new YamlReader(toLines(content)).read();
  if (root.kind === 'empty') return { packages: { pip: [] }, unsupported: [] };
  if (root.kind !== 'map') fail(root.line, 'environment.yml', 'the file must be a mapping (name, channels, dependencies)');
  let name: string | undefined;
  const conda: UnsupportedEntry[] = [];
  const pipLines: RequirementLine[] = [];
  for (const { key, value, line } of root.entries) {
    if (key === 'name' && value.kind === 'scalar') name = value.value;
    else if (key === 'channels' || key === 'prefix') continue;
    else if (key === 'dependencies') readDependencies(value, conda, pipLines);
    else if (key === 'variables') conda.push({ line, text: key, reason: 'environment variables are not imported' });
    else conda.push({ line, text: key, reason: `"${key}" is not used by Sandpit` });
  }
  const pip = importRequirementLines(pipLines);
  const unsupported = [...conda, ...pip.unsupported].sort((a, b) => a.line - b.line);
  return { ...(name === undefined ? {} : { name }), packages: pip.packages, unsupported };
}

function readDependencies(node: YamlNode, conda: UnsupportedEntry[], pipLines: RequirementLine[]): void {
  if (node.kind === 'empty') return;
  if (node.kind !== 'seq') fail(node.line, 'dependencies', 'dependencies must be a list');
  for (const item of node.items) {
    if (item.kind === 'scalar') {
      if (!BASE_PACKAGES.has(condaName(item.value))) conda.push({ line: item.line, text: item.value, reason: CONDA_REASON });
    } else if (item.kind === 'map') {
      for (const entry of item.entries) {
        if (entry.key !== 'pip') {
          conda.push({ line: entry.line, text: `${entry.key}:`, reason: 'only a "pip:" list is understood inside dependencies' });
          continue;
        }
        if (entry.value.kind === 'empty') continue;
        if (entry.value.kind !== 'seq') fail(entry.line, 'pip:', 'the pip part must be a list');
        for (const requirement of entry.value.items) {
          if (requirement.kind === 'empty') continue;
          if (requirement.kind !== 'scalar') fail(requirement.line, 'pip:', 'pip requirements must be plain strings');
          pipLines.push({ line: requirement.line, text: requirement.value.trim() });
        }
      }
    } else if (item.kind === 'seq') {
      fail(item.line, 'dependencies', 'a dependency cannot be a nested list');
    }
  }
}
