import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import type { StatementSync } from 'node:sqlite';
import { SandpitError } from '../../shared/api/errors';

/** Bump (and migrate in `migrate`) when the table changes; the chain's canonical form has its own version. */
const SCHEMA_VERSION = 6;

/** How long a writer waits for another process's write to end before SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 10_000;

/**
 * One row per audited call. The first block is written when the call starts (and hashed then: the
 * "open" chain entry); the second block is filled in when it ends (the "close" entry hashes every column
 * of the row). See audit-chain.ts for the scheme.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS audit (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  method TEXT NOT NULL,
  started_at TEXT NOT NULL,
  transport TEXT NOT NULL,
  client TEXT,
  principal TEXT,
  execution_id TEXT,
  code TEXT NOT NULL,
  owner_host TEXT NOT NULL,
  owner_pid INTEGER NOT NULL,
  owner_start TEXT NOT NULL,
  owner_instance TEXT NOT NULL,
  open_seq INTEGER NOT NULL UNIQUE,
  open_hash TEXT NOT NULL,

  status TEXT NOT NULL,
  session_id TEXT,
  environment TEXT,
  finished_at TEXT,
  file_content TEXT,
  exit_code INTEGER,
  duration_ms INTEGER,
  stdout TEXT,
  stderr TEXT,
  stdout_truncated INTEGER,
  stderr_truncated INTEGER,
  artifacts TEXT,
  error_code TEXT,
  error_message TEXT,
  sandbox TEXT,
  replay_of INTEGER,
  result TEXT,
  folders TEXT,
  approval TEXT,
  background_run TEXT,
  close_seq INTEGER UNIQUE,
  close_hash TEXT
);
CREATE INDEX IF NOT EXISTS audit_status ON audit (status);
CREATE INDEX IF NOT EXISTS audit_started_at ON audit (started_at);
CREATE INDEX IF NOT EXISTS audit_session ON audit (session_id);
CREATE TABLE IF NOT EXISTS audit_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

export interface OpenAuditDatabaseOptions {
  /** Open for reading only (the CLI's verify and export): no file is created, no schema written. */
  readOnly?: boolean;
}

/**
 * Opens (creating when needed, mode 0600) the audit database in WAL mode with synchronous=NORMAL: a commit
 * is in the WAL (the OS has it) when it returns, so a row that was committed survives any crash or kill of
 * Sandpit; the WAL reaches the disk itself at each checkpoint, which the store asks for within a second of
 * a write (AuditStore), so a power cut loses at most that last second. (FULL would sync every commit: two
 * fsyncs per run, most of a warm run's time, and the lock other Sandpit processes wait on.) This connection
 * never checkpoints on its own (`wal_autocheckpoint = 0`: that ran, with its fsyncs, inside every ~150th
 * run's commit); the store's syncer thread does, off the event loop (audit-syncer.ts).
 */
export function openAuditDatabase(path: string, options: OpenAuditDatabaseOptions = {}): DatabaseSync {
  if (options.readOnly) {
    if (!existsSync(path)) throw new SandpitError('NOT_FOUND', `There is no audit log at ${path}.`);
    const db = new DatabaseSync(path, { readOnly: true, timeout: BUSY_TIMEOUT_MS });
    db.exec('PRAGMA query_only = ON;');
    return db;
  }
  if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600));
  chmodSync(path, 0o600);
  const db = new DatabaseSync(path, { timeout: BUSY_TIMEOUT_MS });
  try {
    // SQLite gives the -wal and -shm files the database file's mode.
    db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA trusted_schema = OFF; PRAGMA wal_autocheckpoint = 0;');
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

function migrate(db: DatabaseSync): void {
  const row = db.prepare('PRAGMA user_version').get() as { user_version: number } | undefined;
  const version = row?.user_version ?? 0;
  if (version > SCHEMA_VERSION) {
    throw new SandpitError('CONFLICT', `The audit log was written by a newer Sandpit (schema ${version}); update Sandpit to open it.`);
  }
  if (version === SCHEMA_VERSION) return;
  db.exec('BEGIN IMMEDIATE');
  try {
    db.exec(SCHEMA);
    // Version 2: `sandbox` (the isolation and shared folders a run had). An older table gets the column.
    const columns = db.prepare('PRAGMA table_info(audit)').all() as Array<{ name: string }>;
    if (!columns.some((c) => c.name === 'sandbox')) db.exec('ALTER TABLE audit ADD COLUMN sandbox TEXT');
    // Version 3: `replay_of` (the row a replayed run repeats) and `result` (the value of a run's last
    // expression, for notebooks). An older table gets the columns.
    if (!columns.some((c) => c.name === 'replay_of')) db.exec('ALTER TABLE audit ADD COLUMN replay_of INTEGER');
    if (!columns.some((c) => c.name === 'result')) db.exec('ALTER TABLE audit ADD COLUMN result TEXT');
    db.exec('CREATE INDEX IF NOT EXISTS audit_replay_of ON audit (replay_of)');
    // Version 4: `folders` (the folders of the person's computer a run's session had, and their mode); a
    // version 3 log (replay_of and result, without folders) exists already, so this is a version of its own.
    if (!columns.some((c) => c.name === 'folders')) db.exec('ALTER TABLE audit ADD COLUMN folders TEXT');
    // Version 5: `approval` (who answered the approval question of an asked call, and where: the panel or the chat).
    if (!columns.some((c) => c.name === 'approval')) db.exec('ALTER TABLE audit ADD COLUMN approval TEXT');
    // Version 6: `background_run` (the id of the background run a call was: stored when it starts, hashed when it ends).
    if (!columns.some((c) => c.name === 'background_run')) db.exec('ALTER TABLE audit ADD COLUMN background_run TEXT');
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    db.exec('COMMIT');
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}

/** Runs `work` in one write transaction (BEGIN IMMEDIATE: the chain head cannot move under it). */
export function inWriteTransaction<T>(db: DatabaseSync, work: () => T): T {
  statement(db, 'BEGIN IMMEDIATE').run();
  try {
    const result = work();
    statement(db, 'COMMIT').run();
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

const statements = new WeakMap<DatabaseSync, Map<string, StatementSync>>();

/**
 * The prepared statement for `sql` on `db`, compiled once per connection: the hot path (two audit writes
 * per run) runs the same few statements every time, and compiling them was most of their cost.
 */
export function statement(db: DatabaseSync, sql: string): StatementSync {
  let cache = statements.get(db);
  if (!cache) {
    cache = new Map();
    statements.set(db, cache);
  }
  let prepared = cache.get(sql);
  if (!prepared) {
    prepared = db.prepare(sql);
    cache.set(sql, prepared);
  }
  return prepared;
}
