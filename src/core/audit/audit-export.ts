import type { AuditEntry, AuditExportFormat } from '../../shared/domain/audit';

/** The CSV columns, in order (the header line uses these names). */
export const CSV_COLUMNS = [
  'id',
  'method',
  'startedAt',
  'finishedAt',
  'durationMs',
  'status',
  'exitCode',
  'client',
  'transport',
  'principal',
  'sessionId',
  'environment',
  'executionId',
  'code',
  'fileContent',
  'stdout',
  'stderr',
  'stdoutTruncated',
  'stderrTruncated',
  'result',
  'artifacts',
  'errorCode',
  'errorMessage',
  'replayOf',
  'folders',
  'openSeq',
  'openHash',
  'closeSeq',
  'closeHash',
] as const satisfies ReadonlyArray<keyof AuditEntry>;

/** Free text from clients and programs (the columns a spreadsheet must not evaluate). */
const TEXT_COLUMNS: ReadonlySet<string> = new Set(['client', 'principal', 'sessionId', 'environment', 'executionId', 'code', 'fileContent', 'stdout', 'stderr', 'result', 'errorCode', 'errorMessage', 'folders']);

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, a quote, CR or LF (quotes doubled). Text that a
 * spreadsheet would read as a formula (=, +, -, @, tab, CR first) gets a leading apostrophe (OWASP's CSV
 * injection advice), so opening an export never runs an assistant's payload.
 */
export function csvField(value: string, isText = true): string {
  const safe = isText && /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

function cell(entry: AuditEntry, column: (typeof CSV_COLUMNS)[number]): string {
  // One folder per line: where it is on this computer, where the run saw it, and how.
  if (column === 'folders') return csvField((entry.folders ?? []).map((f) => `${f.hostPath} -> ${f.mountPath} (${f.mode})`).join('\n'), true);
  const value = entry[column];
  if (value === undefined) return '';
  if (Array.isArray(value)) return value.join(' ');
  return csvField(String(value), TEXT_COLUMNS.has(column));
}

export function csvHeader(): string {
  return `${CSV_COLUMNS.join(',')}\r\n`;
}

export function csvLine(entry: AuditEntry): string {
  return `${CSV_COLUMNS.map((column) => cell(entry, column)).join(',')}\r\n`;
}

export function jsonlLine(entry: AuditEntry): string {
  return `${JSON.stringify(entry)}\n`;
}

/** The export of `entries` in `format`, one chunk at a time (the CSV header first). */
export function* exportChunks(format: AuditExportFormat, entries: Iterable<AuditEntry>): Generator<string> {
  if (format === 'csv') yield csvHeader();
  for (const entry of entries) yield format === 'csv' ? csvLine(entry) : jsonlLine(entry);
}

export interface BoundedExport {
  content: string;
  rows: number;
  truncated: boolean;
}

/** The export as one string of at most `maxChars` characters and `maxRows` rows (whole rows only). */
export function boundedExport(format: AuditExportFormat, entries: Iterable<AuditEntry>, maxRows: number, maxChars: number): BoundedExport {
  let content = format === 'csv' ? csvHeader() : '';
  let rows = 0;
  for (const entry of entries) {
    if (rows >= maxRows) return { content, rows, truncated: true };
    const line = format === 'csv' ? csvLine(entry) : jsonlLine(entry);
    if (content.length + line.length > maxChars) return { content, rows, truncated: true };
    content += line;
    rows += 1;
  }
  return { content, rows, truncated: false };
}
