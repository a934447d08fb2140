import type { DatabaseSync } from 'node:sqlite';
import { entryHash } from './audit-chain';
import type { AuditRecord, ChainPoint, EntryKind } from './audit-chain';

export interface WalkStep {
  kind: EntryKind;
  seq: number;
  hash: string;
  record: AuditRecord;
}

export interface WalkProblem {
  /** The row where the chain stops holding. */
  rowId: number;
  reason: string;
}

export interface WalkResult {
  /** The last entry that checked out (the start point when none did). */
  last: ChainPoint;
  /** The row of that entry. */
  lastRowId?: number;
  /** Rows whose start entry checked out. */
  rows: number;
  problem?: WalkProblem;
}

/** How often a walk that lets others run (walkChainInSlices) offers to pause: a small fraction of a millisecond. */
const SLICE_ENTRIES = 64;

/**
 * Walks the chain entries (see audit-chain.ts) in seq order from `start`, recomputing every hash from the
 * columns as stored. `visit` sees each entry that checked out; returning false ends the walk there.
 * The walk stops at the first entry that does not check out and names its row. Read-only.
 */
export function walkChain(db: DatabaseSync, start: ChainPoint, visit: (step: WalkStep) => boolean = () => true): WalkResult {
  const walk = walkChainInSlices(db, start, visit);
  for (;;) {
    const step = walk.next();
    if (step.done) return step.value;
  }
}

/** The same walk, pausing (a `yield`) every SLICE_ENTRIES entries so whoever drives it can let others run. */
export function* walkChainInSlices(db: DatabaseSync, start: ChainPoint, visit: (step: WalkStep) => boolean = () => true): Generator<void, WalkResult> {
  const entries = db.prepare(
    `SELECT 'open' AS kind, open_seq AS seq, id FROM audit
     UNION ALL SELECT 'close' AS kind, close_seq AS seq, id FROM audit WHERE close_seq IS NOT NULL
     ORDER BY seq, kind DESC`,
  );
  const rowById = db.prepare('SELECT * FROM audit WHERE id = ?');
  let last: ChainPoint = start;
  let lastRowId: number | undefined;
  let rows = 0;
  const stop = (rowId: number, reason: string): WalkResult => ({ last, lastRowId, rows, problem: { rowId, reason } });
  let walked = 0;
  for (const entry of entries.iterate()) {
    walked += 1;
    if (walked % SLICE_ENTRIES === 0) yield;
    const kind = entry.kind as EntryKind;
    const rowId = Number(entry.id);
    const seq = entry.seq;
    if (typeof seq !== 'number' || !Number.isInteger(seq)) return stop(rowId, `row ${rowId} has a damaged chain position (${kind === 'open' ? 'open_seq' : 'close_seq'}).`);
    if (seq <= last.seq) {
      return stop(rowId, seq <= start.seq && lastRowId === undefined
        ? `row ${rowId} sits before the start of the chain (entry ${seq}, but the chain starts after entry ${start.seq}).`
        : `row ${rowId} reuses chain entry ${seq}: its chain fields were changed.`);
    }
    if (seq !== last.seq + 1) {
      const missing = seq - 1 === last.seq + 1 ? `entry ${last.seq + 1} is` : `entries ${last.seq + 1}–${seq - 1} are`;
      return stop(rowId, `chain ${missing} missing just before row ${rowId}: a row was deleted, or its chain fields were changed.`);
    }
    const record = rowById.get(rowId) as AuditRecord | undefined;
    if (!record) return stop(rowId, `row ${rowId} disappeared during the check.`);
    const stored = kind === 'open' ? record.open_hash : record.close_hash;
    const expected = entryHash(last.hash, kind, record);
    if (stored !== expected) {
      return stop(rowId, kind === 'open'
        ? `row ${rowId} was changed after it was written: its start (time, client, code …) does not match its hash.`
        : `row ${rowId} was changed after it completed: its stored fields do not match its hash.`);
    }
    if (kind === 'open') {
      const running = record.status === 'running';
      const closed = record.close_seq !== null;
      if (running && closed) return stop(rowId, `row ${rowId} is marked running but its completion is in the chain: its status was changed.`);
      if (!running && !closed) return stop(rowId, `row ${rowId} says "${String(record.status)}" but its completion is not in the chain: it was changed.`);
      rows += 1;
    }
    last = { seq, hash: expected };
    lastRowId = rowId;
    if (!visit({ kind, seq, hash: expected, record })) break;
  }
  return { last, lastRowId, rows };
}
