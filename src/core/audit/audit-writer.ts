import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import { SandpitError } from '../../shared/api/errors';
import type { AuditFolder, AuditSandbox, AuditStatus, AuditedMethod } from '../../shared/domain/audit';
import type { InstanceIdentity } from '../sandbox/instance-identity';
import { CLOSE_COLUMNS, LATER_CLOSE_COLUMNS, entryHash } from './audit-chain';
import type { AuditRecord, ChainPoint } from './audit-chain';
import { inWriteTransaction, statement } from './audit-database';
import { readHead, writeHead } from './audit-meta';
import { dataVersion, forgetOwnWrites, ownWrites, rememberCommit } from './audit-own-writes';
import { AUDIT_OUTPUT_CAP_BYTES, capText } from './cap-text';

/** What is known when a call starts: written (and chained) before anything runs. */
export interface AuditStart {
  method: AuditedMethod;
  transport: string;
  client?: string;
  principal?: string;
  /** The session asked for (none: the caller's default session, filled in on completion). */
  sessionId?: string;
  executionId?: string;
  /** The code; the command; one package per line; the file path for runFile. */
  code: string;
  startedAt?: Date;
  /** A replayed run: the id of the row it repeats (stored at the start, hashed with the completion). */
  replayOf?: number;
  /** A background run (issue 23): its run id (stored at the start, hashed with the completion). */
  backgroundRun?: string;
}

/** How a call ended. */
export interface AuditFinish {
  status: Exclude<AuditStatus, 'running'>;
  finishedAt?: Date;
  sessionId?: string;
  environment?: string;
  fileContent?: string;
  exitCode?: number;
  /** Default: from the start to `finishedAt`; null when unknown (a run found abandoned). */
  durationMs?: number | null;
  stdout?: string;
  stderr?: string;
  stdoutTruncated?: boolean;
  stderrTruncated?: boolean;
  artifacts?: readonly string[];
  errorCode?: string;
  errorMessage?: string;
  /** The value of the run's last expression (its repr), as the run returned it. */
  result?: string;
  /** The sandbox the run had: its isolation and engine runtime. */
  sandbox?: AuditSandbox;
  /** The folders of the person's computer the run's session had, and their mode (none: null in the row). */
  folders?: readonly AuditFolder[];
  /** An asked call: how its approval question was answered, and where (e.g. "Approved in the chat by Claude Code"). */
  approval?: string;
}

/**
 * SQLite stores UTF-8: a lone surrogate would come back as U+FFFD and no longer match the hash computed
 * from the string that was written. Every string is made well-formed before it is hashed or stored.
 */
function wellFormed(value: string): string {
  return (value as string & { toWellFormed(): string }).toWellFormed();
}

function optionalText(value: string | undefined): string | null {
  return value === undefined ? null : wellFormed(value);
}

export function currentHead(db: DatabaseSync): ChainPoint {
  const head = readHead(db);
  if (!head) throw new SandpitError('INTERNAL', 'The audit log\'s chain head is damaged; run "sandpit audit verify".');
  return head;
}

/** Every column of a row as stored, from the columns written (the others are NULL). */
export function storedRecord(written: Partial<AuditRecord>): AuditRecord {
  const record = {} as AuditRecord;
  for (const column of CLOSE_COLUMNS) record[column] = null;
  for (const column of LATER_CLOSE_COLUMNS) record[column] = null;
  record.close_hash = null;
  return Object.assign(record, written);
}

/** The columns a `running` row is inserted with (all but its id and open hash), as entry `seq` of the chain. */
export function openValues(start: AuditStart, owner: InstanceIdentity, seq: number): Partial<AuditRecord> {
  return {
    method: start.method,
    started_at: (start.startedAt ?? new Date()).toISOString(),
    transport: wellFormed(start.transport),
    client: optionalText(start.client),
    principal: optionalText(start.principal),
    execution_id: optionalText(start.executionId),
    code: wellFormed(start.code),
    owner_host: owner.host,
    owner_pid: owner.pid,
    owner_start: owner.processStart,
    owner_instance: owner.instanceId,
    open_seq: seq,
    status: 'running',
    session_id: optionalText(start.sessionId),
    replay_of: start.replayOf === undefined ? null : Math.trunc(start.replayOf),
    background_run: optionalText(start.backgroundRun),
  } satisfies Partial<AuditRecord>;
}

/** The columns a completion sets on the stored `running` row `row`, as entry `seq` of the chain (all but its hash). */
export function closeValues(row: AuditRecord, finish: AuditFinish, seq: number): Partial<AuditRecord> {
  const id = Number(row.id);
  if (row.status !== 'running') throw new SandpitError('CONFLICT', `Audit row ${id} is already completed (${String(row.status)}).`);
  const finishedAt = finish.finishedAt ?? new Date();
  const stdout = capText(finish.stdout ?? '', AUDIT_OUTPUT_CAP_BYTES);
  const stderr = capText(finish.stderr ?? '', AUDIT_OUTPUT_CAP_BYTES);
  const message = finish.errorMessage === undefined ? undefined : capText(finish.errorMessage, AUDIT_OUTPUT_CAP_BYTES).text;
  const duration = finish.durationMs === undefined ? finishedAt.getTime() - Date.parse(String(row.started_at)) : finish.durationMs;
  return {
    status: finish.status,
    session_id: finish.sessionId === undefined ? row.session_id : wellFormed(finish.sessionId),
    environment: optionalText(finish.environment),
    finished_at: finishedAt.toISOString(),
    file_content: optionalText(finish.fileContent),
    exit_code: finish.exitCode === undefined ? null : Math.trunc(finish.exitCode),
    duration_ms: duration !== null && Number.isFinite(duration) ? Math.max(0, Math.round(duration)) : null,
    stdout: wellFormed(stdout.text),
    stderr: wellFormed(stderr.text),
    stdout_truncated: stdout.truncated || finish.stdoutTruncated ? 1 : 0,
    stderr_truncated: stderr.truncated || finish.stderrTruncated ? 1 : 0,
    artifacts: JSON.stringify((finish.artifacts ?? []).map(wellFormed)),
    error_code: optionalText(finish.errorCode),
    error_message: optionalText(message),
    sandbox: finish.sandbox === undefined ? null : wellFormed(JSON.stringify(finish.sandbox)),
    result: finish.result === undefined ? null : wellFormed(capText(finish.result, AUDIT_OUTPUT_CAP_BYTES).text),
    folders: finish.folders === undefined || finish.folders.length === 0 ? null : wellFormed(JSON.stringify(finish.folders)),
    approval: optionalText(finish.approval),
    close_seq: seq,
  } satisfies Partial<AuditRecord>;
}

/** One SQL statement with its parameters (what the journal's batches are made of, see audit-journal.ts). */
export interface AuditStatement {
  sql: string;
  params: SQLInputValue[];
}

/**
 * The insert of an opened row, id and hash given. Applying it again does nothing (a batch may be applied twice:
 * by the syncer thread and, when it lags or fails, by the store itself).
 */
export function insertStatement(row: Partial<AuditRecord>): AuditStatement {
  const columns = Object.keys(row);
  return { sql: `INSERT INTO audit (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) ON CONFLICT (id) DO NOTHING`, params: Object.values(row) };
}

/** The completion of row `id` (its close hash given). Applying it again does nothing: it only changes a `running` row. */
export function completeStatement(id: number, set: Partial<AuditRecord>): AuditStatement {
  const columns = Object.keys(set);
  return { sql: `UPDATE audit SET ${columns.map((c) => `${c} = ?`).join(', ')} WHERE id = ? AND status = 'running'`, params: [...(Object.values(set) as SQLInputValue[]), id] };
}

/** The chain head moved to `head`, never back (a batch applied again leaves a newer head as it is). */
export function headStatement(head: ChainPoint): AuditStatement {
  return {
    sql: "INSERT INTO audit_meta (key, value) VALUES ('head', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE json_extract(audit_meta.value, '$.seq') < json_extract(excluded.value, '$.seq')",
    params: [JSON.stringify(head)],
  };
}

/**
 * Inserts a `running` row and its open entry in one durable transaction. When this connection made the last
 * commit (audit-own-writes.ts) the row goes in with its id and hash in one statement; else the id comes from
 * the insert and the hash follows.
 */
export function appendOpen(db: DatabaseSync, start: AuditStart, owner: InstanceIdentity): AuditRecord {
  let version = 0;
  let own: ReturnType<typeof ownWrites>;
  let written: { row: AuditRecord; head: ChainPoint };
  try {
    written = inWriteTransaction(db, () => {
      version = dataVersion(db);
      own = ownWrites(db, version);
      const head = own?.head ?? currentHead(db);
      const seq = head.seq + 1;
      const values = openValues(start, owner, seq);
      const columns = Object.keys(values);
      let row: AuditRecord;
      if (own?.lastId !== undefined) {
        // AUTOINCREMENT gives the next id after the largest ever used: this connection's last one.
        const id = own.lastId + 1;
        const hash = entryHash(head.hash, 'open', { ...values, id });
        statement(db, `INSERT INTO audit (id, ${columns.join(', ')}, open_hash) VALUES (?, ${columns.map(() => '?').join(', ')}, ?)`).run(
          id,
          ...(Object.values(values) as SQLInputValue[]),
          hash,
        );
        row = storedRecord({ ...values, id, open_hash: hash });
      } else {
        const inserted = statement(db, `INSERT INTO audit (${columns.join(', ')}, open_hash) VALUES (${columns.map(() => '?').join(', ')}, '')`).run(
          ...(Object.values(values) as SQLInputValue[]),
        );
        const id = Number(inserted.lastInsertRowid);
        const hash = entryHash(head.hash, 'open', { ...values, id });
        row = statement(db, 'UPDATE audit SET open_hash = ? WHERE id = ? RETURNING *').get(hash, id) as AuditRecord;
      }
      const next = { seq, hash: String(row.open_hash) };
      writeHead(db, next);
      return { row, head: next };
    });
  } catch (error) {
    forgetOwnWrites(db);
    throw error;
  }
  rememberCommit(db, version, written.head, own, (mine) => {
    const id = Number(written.row.id);
    mine.lastId = id;
    mine.open.set(id, written.row);
  });
  return written.row;
}

/** Completes a `running` row: fills in its final fields and appends its close entry, durably. */
export function appendClose(db: DatabaseSync, id: number, finish: AuditFinish): AuditRecord {
  let version = 0;
  let own: ReturnType<typeof ownWrites>;
  let written: { record: AuditRecord; head: ChainPoint };
  try {
    written = inWriteTransaction(db, () => {
      version = dataVersion(db);
      own = ownWrites(db, version);
      // This connection's own open row, as stored, when nothing else has written since; else read back.
      const row = own?.open.get(id) ?? (statement(db, 'SELECT * FROM audit WHERE id = ?').get(id) as AuditRecord | undefined);
      if (!row) throw new SandpitError('NOT_FOUND', `Audit row ${id} does not exist.`);
      const head = own?.head ?? currentHead(db);
      const seq = head.seq + 1;
      const final = closeValues(row, finish, seq);
      const record: AuditRecord = { ...row, ...final, close_hash: null };
      const hash = entryHash(head.hash, 'close', record);
      const columns = Object.keys(final);
      statement(db, `UPDATE audit SET ${columns.map((c) => `${c} = ?`).join(', ')}, close_hash = ? WHERE id = ?`).run(...(Object.values(final) as SQLInputValue[]), hash, id);
      const next = { seq, hash };
      writeHead(db, next);
      return { record: { ...record, close_hash: hash }, head: next };
    });
  } catch (error) {
    forgetOwnWrites(db);
    throw error;
  }
  rememberCommit(db, version, written.head, own, (mine) => mine.open.delete(id));
  return written.record;
}
