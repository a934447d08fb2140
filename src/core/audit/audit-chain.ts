import { createHash } from 'node:crypto';

/*
 * The hash chain of the audit log.
 *
 * The chain is one sequence of entries numbered 1, 2, 3, … (`seq`, global to the database). Every row
 * adds two entries:
 *
 *   open  — written in the same transaction that inserts the row, before the call runs. It hashes the
 *           columns that never change (OPEN_COLUMNS: id, method, start time, transport, client,
 *           principal, execution id, code, the owning process, and its own seq) and is stored in
 *           open_seq / open_hash.
 *   close — written in the transaction that completes the row (ok, error, …, or `interrupted` when a
 *           later core finds the row left `running` by a dead process). It hashes EVERY column of the
 *           row (CLOSE_COLUMNS: the open columns, open_hash, all the final fields, its own seq) and is
 *           stored in close_seq / close_hash.
 *
 *   hash(entry) = sha256( hash(previous entry) + "\n" + canonical(entry) ),
 *   canonical(entry) = JSON of [CHAIN_VERSION, kind, [the entry's column values in the fixed order]]
 *
 * where "previous entry" is the one with seq - 1, whichever row it belongs to (the first entry follows
 * the anchor: GENESIS_HASH at seq 0, or the last pruned entry, see below). Entries are numbered by a
 * head (seq, hash) kept in audit_meta and moved inside the writing transaction (BEGIN IMMEDIATE), so the
 * order is the commit order, even with two processes on one file.
 *
 * Because completions are chain entries too, a row that finishes long after later rows started is still
 * linked, and no row waits for another to be hashed. Verification walks the entries in seq order and
 * recomputes each hash from the columns as stored, so:
 *   - changing any column of a completed row breaks its close hash (and an immutable column its open hash);
 *   - deleting a row leaves a gap in the seq numbers;
 *   - deleting the newest rows leaves the stored head pointing past the last entry;
 *   - a completed row turned back into `running` leaves a gap where its close entry was.
 * A `running` row's final fields are not hashed until it completes.
 *
 * Retention removes the oldest rows only at a cut where every entry at or before the cut belongs to a
 * removed row, and records the last removed entry (seq, hash) as the anchor the walk starts from.
 *
 * This detects edits; it does not stop someone who can write the file from recomputing every hash after
 * an edit (there is no secret). Publishing the head hash elsewhere (e.g. the exports carry each row's
 * hashes) makes such a rewrite visible too.
 */

export const CHAIN_VERSION = 'sandpit-audit-1';
export const GENESIS_HASH = '0'.repeat(64);

export const OPEN_COLUMNS = [
  'id',
  'method',
  'started_at',
  'transport',
  'client',
  'principal',
  'execution_id',
  'code',
  'owner_host',
  'owner_pid',
  'owner_start',
  'owner_instance',
  'open_seq',
] as const;

export const CLOSE_COLUMNS = [
  ...OPEN_COLUMNS,
  'open_hash',
  'status',
  'session_id',
  'environment',
  'finished_at',
  'file_content',
  'exit_code',
  'duration_ms',
  'stdout',
  'stderr',
  'stdout_truncated',
  'stderr_truncated',
  'artifacts',
  'error_code',
  'error_message',
  'close_seq',
] as const;

/**
 * Columns added later: hashed at the end of a close entry only when set, so rows written before they
 * existed (always null there) keep their hashes, and setting or clearing one on a later row breaks it.
 */
export const LATER_CLOSE_COLUMNS = ['sandbox', 'replay_of', 'result', 'folders', 'approval', 'background_run'] as const;

export type AuditColumn = (typeof CLOSE_COLUMNS)[number] | (typeof LATER_CLOSE_COLUMNS)[number] | 'close_hash';
export type ChainValue = string | number | bigint | Uint8Array | null;
/** A row as stored: column name → value (what node:sqlite returns, and what is inserted). */
export type AuditRecord = { [C in AuditColumn]: ChainValue };

export type EntryKind = 'open' | 'close';

export interface ChainPoint {
  seq: number;
  hash: string;
}

export const GENESIS: ChainPoint = { seq: 0, hash: GENESIS_HASH };

/** A value as it enters the canonical JSON: types are kept apart (1 ≠ "1", a blob ≠ its text). */
function canonicalValue(value: ChainValue | undefined): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : ['number', String(value)];
  if (typeof value === 'bigint') return ['bigint', value.toString()];
  return ['blob', Buffer.from(value).toString('hex')];
}

/** The canonical serialization of one chain entry of `record`. */
export function canonicalEntry(kind: EntryKind, record: Partial<AuditRecord>): string {
  const columns = kind === 'open' ? OPEN_COLUMNS : CLOSE_COLUMNS;
  const values = columns.map((column) => canonicalValue(record[column]));
  if (kind === 'close') {
    for (const column of LATER_CLOSE_COLUMNS) {
      const value = record[column];
      if (value !== undefined && value !== null) values.push([column, canonicalValue(value)]);
    }
  }
  return JSON.stringify([CHAIN_VERSION, kind, values]);
}

/** The hash of one entry, chained to the hash of the entry before it. */
export function entryHash(previousHash: string, kind: EntryKind, record: Partial<AuditRecord>): string {
  return createHash('sha256').update(previousHash).update('\n').update(canonicalEntry(kind, record)).digest('hex');
}

/** Parses a chain point stored as JSON in audit_meta; undefined when absent or malformed. */
export function parseChainPoint(text: string | undefined): ChainPoint | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<ChainPoint>;
    if (typeof value.seq === 'number' && Number.isInteger(value.seq) && typeof value.hash === 'string' && /^[a-f0-9]{64}$/.test(value.hash)) {
      return { seq: value.seq, hash: value.hash };
    }
  } catch {
    // malformed: reported by the caller
  }
  return undefined;
}
