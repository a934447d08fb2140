import { parse, TomlError } from 'smol-toml';
import { isDeepStrictEqual } from 'node:util';
import { ConfigUnreadableError } from './config-unreadable';
import type { ServersEdit } from './config-unreadable';

function parseToml(path: string, text: string): Record<string, unknown> {
  try {
    return parse(text);
  } catch (error) {
    if (error instanceof TomlError)
      throw new ConfigUnreadableError(
        path,
        `line ${error.line}, column ${error.column}: ${error.message.split('\n')[0]}`,
      );
    throw error;
  }
}

/** A TOML string (basic string, escaped). */
function tomlString(text: string): string {
  return JSON.stringify(text);
}

function tomlValue(value: unknown): string {
  if (typeof value === 'string') return tomlString(value);
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{ ${Object.entries(value)
      .map(([key, inner]) => `${tomlString(key)} = ${tomlValue(inner)}`)
      .join(', ')} }`;
  }
  return String(value);
}

const HEADER = /^\s*\[\s*([^\]]+?)\s*\]\s*(#.*)?$/;

/** The header's dotted key with bare or quoted parts normalised ("mcp_servers".sandpit → mcp_servers.sandpit). */
function headerKey(line: string): string | undefined {
  const match = HEADER.exec(line);
  if (!match?.[1] || line.trim().startsWith('[[')) return undefined;
  return match[1]
    .split('.')
    .map((part) => part.trim().replace(/^"(.*)"$/, '$1'))
    .join('.');
}

/** The file's lines without the `[<table>]` block (and its sub-tables), plus where it was. */
function withoutTable(lines: string[], table: string): { lines: string[]; at: number } {
  const kept: string[] = [];
  let at = -1;
  let inside = false;
  for (const line of lines) {
    const key = headerKey(line);
    if (key !== undefined) inside = key === table || key.startsWith(`${table}.`);
    if (inside && at < 0) at = kept.length;
    if (!inside) kept.push(line);
  }
  return { lines: kept, at };
}

/**
 * Sandpit's `[mcp_servers.sandpit]` table in a TOML settings file (Codex): written as a table of its own at
 * the end (or where it was), every other line of the file untouched. The result is parsed again and must
 * hold exactly the intended entry and everything else unchanged, else the file is refused.
 */
export function tomlServersEdit(path: string, text: string, serversKey: string): ServersEdit {
  const value = parseToml(path, text);
  const servers = value[serversKey];
  if (servers !== undefined && (typeof servers !== 'object' || servers === null || Array.isArray(servers))) {
    throw new ConfigUnreadableError(path, `"${serversKey}" is not a table of servers`);
  }
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  /** The value with an empty servers table dropped (an empty `[mcp_servers]` is the same as none). */
  const normal = (table: Record<string, unknown>): unknown => {
    const copy = JSON.parse(JSON.stringify(table)) as Record<string, unknown>;
    const inner = copy[serversKey];
    if (typeof inner === 'object' && inner !== null && Object.keys(inner).length === 0) delete copy[serversKey];
    return copy;
  };
  const checked = (name: string, next: string, entry: Record<string, unknown> | undefined): string => {
    const others = { ...(servers as Record<string, unknown> | undefined) };
    delete others[name];
    const expected = { ...value, [serversKey]: entry === undefined ? others : { ...others, [name]: entry } };
    if (!isDeepStrictEqual(normal(parseToml(path, next)), normal(expected))) {
      throw new ConfigUnreadableError(
        path,
        `its "${serversKey}.${name}" is written in a way Sandpit does not change by itself (inline or split)`,
      );
    }
    return next;
  };
  return {
    entry: (name) => (servers as Record<string, unknown> | undefined)?.[name],
    set: (name, entry) => {
      const own = `${serversKey}.${name}`;
      const { lines: rest, at } = withoutTable(lines, own);
      const block = [
        `[${serversKey}.${name}]`,
        ...Object.entries(entry).map(([key, inner]) => `${key} = ${tomlValue(inner)}`),
      ];
      let next: string[];
      if (at >= 0)
        next = [
          ...rest.slice(0, at),
          ...block,
          ...(rest.slice(at).length > 0 && rest[at]?.trim() !== '' ? [''] : []),
          ...rest.slice(at),
        ];
      else {
        const body = rest.at(-1) === '' ? rest.slice(0, -1) : rest;
        next = [...body, ...(body.length > 0 && body.at(-1)?.trim() !== '' ? [''] : []), ...block, ''];
      }
      const joined = next.join(eol);
      return checked(name, text.endsWith('\n') && !joined.endsWith('\n') ? `${joined}${eol}` : joined, entry);
    },
    remove: (name) => {
      if ((servers as Record<string, unknown> | undefined)?.[name] === undefined) return text;
      const { lines: rest, at } = withoutTable(lines, `${serversKey}.${name}`);
      // Drop the blank line that separated the block from what came before.
      if (at > 0 && rest[at - 1]?.trim() === '' && (at === rest.length || rest[at] === '')) rest.splice(at - 1, 1);
      return checked(name, rest.join(eol), undefined);
    },
  };
}
