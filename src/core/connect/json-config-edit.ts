import { applyEdits, findNodeAtLocation, modify, parse, parseTree, printParseErrorCode } from 'jsonc-parser';
import type { ParseError } from 'jsonc-parser';
import { ConfigUnreadableError } from './config-unreadable';
import type { ServersEdit } from './config-unreadable';

/** Line and column (1-based) of a character offset. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

const PROBLEM_WORDS: Record<string, string> = {
  InvalidCommentToken: 'a comment, which this file may not have',
  CommaExpected: 'a missing comma',
  PropertyNameExpected: 'a name in quotes was expected (often a comma before a closing brace)',
  ValueExpected: 'a value was expected (often a comma before a closing brace or bracket)',
  CloseBraceExpected: 'a closing } is missing',
  CloseBracketExpected: 'a closing ] is missing',
  ColonExpected: 'a missing colon',
  EndOfFileExpected: 'something after the end of the settings',
  UnexpectedEndOfString: 'a text in quotes is not closed',
};

/** The file's value, or ConfigUnreadableError saying where it breaks. `comments`: whether the format allows them. */
function parseConfig(path: string, text: string, comments: boolean): Record<string, unknown> {
  if (text.trim() === '') return {};
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, {
    disallowComments: !comments,
    allowTrailingComma: comments,
    allowEmptyContent: false,
  });
  const first = errors[0];
  if (first) {
    const { line, column } = lineColumn(text, first.offset);
    const code = printParseErrorCode(first.error);
    throw new ConfigUnreadableError(path, `line ${line}, column ${column}: ${PROBLEM_WORDS[code] ?? code}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigUnreadableError(path, 'it does not hold settings between { and }');
  }
  return value as Record<string, unknown>;
}

/** One indentation step of the file (a tab, or its smallest run of spaces; two spaces when it has none yet). */
function indentUnit(text: string): string {
  const runs = [...text.matchAll(/\n([ \t]+)\S/g)].map((m) => m[1]!);
  if (runs.some((run) => run.startsWith('\t'))) return '\t';
  const widths = runs.map((run) => run.length).filter((n) => n > 0);
  return ' '.repeat(widths.length > 0 ? Math.min(...widths) : 2);
}

/** The whitespace at the start of the line that holds `offset`. */
function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))![0];
}

/** `value` as JSON laid out like the file: its indentation step, continued lines starting at `indent`. */
function layout(value: unknown, unit: string, indent: string, eol: string): string {
  return JSON.stringify(value, null, unit).split('\n').join(`${eol}${indent}`);
}

/**
 * Writes `"name": value` into the object at `path` (made when missing) by inserting text only: every other
 * character of the file — other entries, comments, blank lines, trailing commas — stays as it was.
 */
function insertProperty(text: string, path: string[], value: unknown, eol: string): string {
  const tree = parseTree(text, [], { allowTrailingComma: true });
  const unit = indentUnit(text);
  const existing = tree ? findNodeAtLocation(tree, path) : undefined;
  if (existing) {
    const indent = lineIndent(text, existing.parent?.offset ?? existing.offset);
    return `${text.slice(0, existing.offset)}${layout(value, unit, indent, eol)}${text.slice(existing.offset + existing.length)}`;
  }
  // The deepest object on the path that exists; what is missing below it is written as one value.
  let depth = path.length - 1;
  let holder = tree ? findNodeAtLocation(tree, path.slice(0, depth)) : undefined;
  while (!holder && depth > 0) {
    depth -= 1;
    holder = tree ? findNodeAtLocation(tree, path.slice(0, depth)) : undefined;
  }
  if (!holder || holder.type !== 'object') throw new Error('the settings are not an object');
  let inner: unknown = value;
  for (const key of path.slice(depth + 1).reverse()) inner = { [key]: inner };
  const key = path[depth]!;
  const members = holder.children ?? [];
  const last = members.at(-1);
  if (last) {
    const indent = lineIndent(text, last.offset);
    const at = last.offset + last.length;
    return `${text.slice(0, at)},${eol}${indent}${JSON.stringify(key)}: ${layout(inner, unit, indent, eol)}${text.slice(at)}`;
  }
  const outer = lineIndent(text, holder.offset);
  const indent = `${outer}${unit}`;
  const at = holder.offset + 1;
  const close =
    text.slice(at, holder.offset + holder.length - 1).trim() === '' ? holder.offset + holder.length - 1 : at;
  return `${text.slice(0, at)}${eol}${indent}${JSON.stringify(key)}: ${layout(inner, unit, indent, eol)}${eol}${outer}${text.slice(close)}`;
}

/**
 * Edits one entry of a JSON (or JSON with comments) settings file in place: only the entry's own text
 * changes; every other entry, comment, blank line and the indentation stay as they were.
 */
export function jsonServersEdit(path: string, text: string, serversKey: string, comments: boolean): ServersEdit {
  const value = parseConfig(path, text, comments);
  const servers = value[serversKey];
  if (servers !== undefined && (typeof servers !== 'object' || servers === null || Array.isArray(servers))) {
    throw new ConfigUnreadableError(path, `"${serversKey}" is not a list of servers between { and }`);
  }
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const empty = text.trim() === '';
  return {
    entry: (name) => (servers as Record<string, unknown> | undefined)?.[name],
    set: (name, entry) => {
      const next = insertProperty(empty ? '{}' : text, [serversKey, name], entry, eol);
      return empty ? `${next}${eol}` : next;
    },
    remove: (name) => {
      if ((servers as Record<string, unknown> | undefined)?.[name] === undefined) return text;
      return applyEdits(text, modify(text, [serversKey, name], undefined, {}));
    },
  };
}
