import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import type { AuditEntry, AuditFilters, AuditSummary } from '../../shared/domain/audit';
import type { AuditRecord } from './audit-chain';
import { SUMMARY_CODE_CHARS, toAuditEntry, toAuditSummary } from './audit-record';

export interface AuditScope {
  filters?: AuditFilters;
  /** Only this principal's rows (callers that are not the panel see their own calls only). */
  principal?: string;
}

export interface AuditPageQuery extends AuditScope {
  limit: number;
  /** nextCursor of the previous page. */
  cursor?: string;
}

export interface AuditPage {
  rows: AuditSummary[];
  nextCursor?: string;
}

/** `%text%` for LIKE, with the wildcard characters in `text` matched literally. */
function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The WHERE clause for the filters (always parameterized). */
export function auditWhere(scope: AuditScope): { sql: string; params: SQLInputValue[] } {
  const clauses: string[] = [];
  const params: SQLInputValue[] = [];
  const f = scope.filters ?? {};
  const add = (sql: string, ...values: SQLInputValue[]): void => {
    clauses.push(sql);
    params.push(...values);
  };
  if (scope.principal !== undefined) add('principal = ?', scope.principal);
  // Part of the client's name, in any case: "claude" finds "Claude Desktop" (lower() folds ASCII, as LIKE does).
  if (f.client !== undefined) add("lower(client) LIKE lower(?) ESCAPE '\\'", likePattern(f.client));
  if (f.sessionId !== undefined) add('session_id = ?', f.sessionId);
  if (f.status !== undefined) add('status = ?', f.status);
  if (f.method !== undefined) add('method = ?', f.method);
  // Times are stored as toISOString() (UTC, fixed width), so they compare as text.
  if (f.from !== undefined) add('started_at >= ?', new Date(f.from).toISOString());
  if (f.to !== undefined) add('started_at < ?', new Date(f.to).toISOString());
  if (f.search !== undefined) {
    const pattern = likePattern(f.search);
    add("(code LIKE ? ESCAPE '\\' OR file_content LIKE ? ESCAPE '\\')", pattern, pattern);
  }
  return { sql: clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`, params };
}

/** Columns a summary needs: no output, only the beginning of the code. */
const SUMMARY_COLUMNS = `id, method, started_at, finished_at, transport, client, principal, session_id, environment, execution_id,
  substr(code, 1, ${SUMMARY_CODE_CHARS + 1}) AS code, status, exit_code, duration_ms, stdout_truncated, stderr_truncated,
  artifacts, error_code, error_message, sandbox, replay_of, folders, approval, background_run, open_hash, close_hash`;

/** One page of rows, newest first; `nextCursor` when there are older ones. */
export function listAuditRows(db: DatabaseSync, query: AuditPageQuery): AuditPage {
  const where = auditWhere(query);
  const cursorClause = query.cursor === undefined ? '' : `${where.sql === '' ? 'WHERE' : ' AND'} id < ?`;
  const params = query.cursor === undefined ? where.params : [...where.params, Number(query.cursor)];
  const records = db
    .prepare(`SELECT ${SUMMARY_COLUMNS} FROM audit ${where.sql}${cursorClause} ORDER BY id DESC LIMIT ?`)
    .all(...params, query.limit + 1) as unknown as AuditRecord[];
  const page = records.slice(0, query.limit).map(toAuditSummary);
  const last = page.at(-1);
  return records.length > query.limit && last ? { rows: page, nextCursor: String(last.id) } : { rows: page };
}

/** One complete row. */
export function getAuditRow(db: DatabaseSync, id: number, principal?: string): AuditEntry | undefined {
  const record = db.prepare('SELECT * FROM audit WHERE id = ?').get(id) as AuditRecord | undefined;
  if (!record || (principal !== undefined && record.principal !== principal)) return undefined;
  const replays = (
    db.prepare(`SELECT id FROM audit WHERE replay_of = ?${principal === undefined ? '' : ' AND principal = ?'} ORDER BY id`).all(
      ...(principal === undefined ? [id] : [id, principal]),
    ) as Array<{ id: number }>
  ).map((r) => Number(r.id));
  return replays.length === 0 ? toAuditEntry(record) : { ...toAuditEntry(record), replays };
}

/** Every matching row, oldest first, one at a time (exports of any size). */
export function* iterateAuditRows(db: DatabaseSync, scope: AuditScope): Generator<AuditEntry> {
  const where = auditWhere(scope);
  const statement = db.prepare(`SELECT * FROM audit ${where.sql} ORDER BY id ASC`);
  for (const record of statement.iterate(...where.params)) yield toAuditEntry(record as AuditRecord);
}
