import type { Artifact } from '../../shared/domain/artifact';
import type { ExecutionResult } from '../../shared/domain/execution';
import { TABLES_META_KEY } from './console-app-script';

/** A table the console shows sorted: an HTML display (pandas' DataFrame) or CSV (a display, or a file the run saved). */
export interface ConsoleTable {
  name: string;
  mime: 'text/html' | 'text/csv';
  text: string;
}

/** One table's text at most (bigger ones stay links, as before). */
export const MAX_TABLE_CHARS = 256 * 1024;
/** All tables of one result at most, and how many. */
export const MAX_TABLES_CHARS = 1024 * 1024;
export const MAX_TABLES = 8;

const HAS_TABLE = /<table[\s>]/i;

const mimeOf = (mime: string): string => mime.split(';')[0]?.trim().toLowerCase() ?? '';

/**
 * The tables of a run, for the console in the chat (`_meta["dev.sandpit/tables"]` of its tool result, which a host
 * hands to the app and not to the model): HTML displays that hold a <table> (`display(df)` in pandas), `text/csv`
 * displays ("Shown by the run"), and CSV files the run saved (by their path) — each at most MAX_TABLE_CHARS, at most
 * MAX_TABLES and MAX_TABLES_CHARS in all; what does not fit stays what it was (a link, a picture, text).
 */
export async function consoleTables(result: ExecutionResult, readArtifact: (sha256: string) => Promise<Buffer>): Promise<ConsoleTable[]> {
  const tables: ConsoleTable[] = [];
  let total = 0;
  const add = (table: ConsoleTable): void => {
    if (tables.length >= MAX_TABLES || table.text.length > MAX_TABLE_CHARS || total + table.text.length > MAX_TABLES_CHARS) return;
    tables.push(table);
    total += table.text.length;
  };
  const shown = result.displays.filter((display) => {
    const mime = mimeOf(display.mime);
    return display.encoding === 'utf8' && (mime === 'text/csv' || (mime === 'text/html' && HAS_TABLE.test(display.data)));
  });
  for (const [index, display] of shown.entries()) {
    add({ name: shown.length > 1 ? `Shown by the run (${index + 1} of ${shown.length})` : 'Shown by the run', mime: mimeOf(display.mime) as ConsoleTable['mime'], text: display.data });
  }
  const csvFiles = result.artifacts.filter((a: Artifact) => mimeOf(a.mime) === 'text/csv' && a.size <= MAX_TABLE_CHARS);
  for (const file of csvFiles) {
    if (tables.length >= MAX_TABLES) break;
    add({ name: file.path, mime: 'text/csv', text: (await readArtifact(file.sha256)).toString('utf8') });
  }
  return tables;
}

/** The `_meta` of a tool result that carries them (none when there are none). */
export function tablesMeta(tables: readonly ConsoleTable[]): Record<string, unknown> | undefined {
  return tables.length > 0 ? { [TABLES_META_KEY]: tables } : undefined;
}
