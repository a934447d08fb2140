import type { AuditEntry, AuditExportFormat } from '../../shared/domain/audit';
import { AUDIT_METHOD_WORDS, RUN_STATUS_WORDS, TRANSPORT_WORDS } from '../../shared/domain/audit-words';

/**
 * The CSV columns, in order: the row's field and the heading a person reads in a spreadsheet (the JSONL
 * export keeps the field names, for machines).
 */
export const CSV_COLUMNS = [
  ['id', 'Row'],
  ['method', 'Kind of run'],
  ['startedAt', 'Started'],
  ['finishedAt', 'Ended'],
  ['durationMs', 'Took (ms)'],
  ['status', 'Outcome'],
  ['exitCode', 'Exit code'],
  ['client', 'Assistant or app'],
  ['transport', 'Connected how'],
  ['principal', 'Access key used'],
  ['sessionName', 'Session'],
  ['sessionId', 'Session number'],
  ['environment', 'Environment'],
  ['executionId', 'Run number'],
  ['code', 'Code or command'],
  ['fileContent', 'File content'],
  ['stdout', 'Output'],
  ['stderr', 'Errors and warnings'],
  ['stdoutTruncated', 'Output cut short'],
  ['stderrTruncated', 'Errors cut short'],
  ['result', 'Value returned'],
  ['artifacts', 'Files made (fingerprints)'],
  ['errorCode', 'Error code'],
  ['errorMessage', 'Error'],
  ['replayOf', 'Replay of row'],
  ['folders', 'Shared folders'],
  ['secrets', 'Secrets it could use'],
  ['approval', 'Approval'],
  ['backgroundRun', 'Background run'],
  ['openSeq', 'Chain position at start'],
  ['openHash', 'Chain fingerprint at start'],
  ['closeSeq', 'Chain position at end'],
  ['closeHash', 'Chain fingerprint at end'],
] as const satisfies ReadonlyArray<readonly [keyof AuditEntry | 'sessionName' | 'secrets', string]>;

type CsvColumn = (typeof CSV_COLUMNS)[number][0];

/** Free text from clients and programs (the columns a spreadsheet must not evaluate). */
const TEXT_COLUMNS: ReadonlySet<string> = new Set(['client', 'principal', 'sessionName', 'sessionId', 'environment', 'executionId', 'code', 'fileContent', 'stdout', 'stderr', 'result', 'errorCode', 'errorMessage', 'folders', 'secrets', 'approval', 'backgroundRun']);

const FOLDER_MODE_WORDS: Record<string, string> = { ro: 'read-only', rw: 'read and write' };

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, a quote, CR or LF (quotes doubled). Text that a
 * spreadsheet would read as a formula (=, +, -, @, tab, CR first) gets a leading apostrophe (OWASP's CSV
 * injection advice), so opening an export never runs an assistant's payload.
 */
export function csvField(value: string, isText = true): string {
  const safe = isText && /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** A column's value in plain words: a run's kind and outcome as Activity says them, yes for a flag. */
function plainValue(entry: AuditEntry, column: CsvColumn): string | undefined {
  switch (column) {
    case 'method':
      return AUDIT_METHOD_WORDS[entry.method];
    case 'status':
      return RUN_STATUS_WORDS[entry.status] ?? entry.status;
    case 'transport':
      return TRANSPORT_WORDS[entry.transport] ?? entry.transport;
    case 'sessionName':
      return entry.sandbox?.sessionName;
    case 'stdoutTruncated':
    case 'stderrTruncated':
      return entry[column] ? 'yes' : 'no';
    // One folder per line: where it is on this computer, where the run saw it, and how.
    case 'folders':
      return (entry.folders ?? []).map((f) => `${f.hostPath} -> ${f.mountPath} (${FOLDER_MODE_WORDS[f.mode] ?? f.mode})`).join('\n');
    // The secrets its session could use, by name (never a value): "openai, github".
    case 'secrets':
      return entry.sandbox?.secrets?.join(', ');
    default: {
      const value = entry[column];
      if (value === undefined) return undefined;
      return Array.isArray(value) ? value.join(' ') : String(value);
    }
  }
}

function cell(entry: AuditEntry, column: CsvColumn): string {
  const value = plainValue(entry, column);
  return value === undefined ? '' : csvField(value, TEXT_COLUMNS.has(column));
}

export function csvHeader(): string {
  return `${CSV_COLUMNS.map(([, heading]) => csvField(heading, false)).join(',')}\r\n`;
}

export function csvLine(entry: AuditEntry): string {
  return `${CSV_COLUMNS.map(([column]) => cell(entry, column)).join(',')}\r\n`;
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
