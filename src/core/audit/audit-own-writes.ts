import type { DatabaseSync } from 'node:sqlite';
import type { AuditRecord, ChainPoint } from './audit-chain';
import { statement } from './audit-database';

/**
 * What one connection knows from its own last commit: the chain head it wrote, the last row id it inserted, and
 * the rows it opened and has not completed (as stored). It holds while no other connection has committed since —
 * SQLite's `data_version` tells (it changes with every other connection's commit, never with this one's) — and
 * then spares a run's two commits their reads: the head (a row of audit_meta and its JSON), the inserted row read
 * back for its id, and the open row read back to be hashed when it completes. When another connection (another
 * Sandpit process, a person editing the file) has written, everything is read from the file again.
 */
export interface OwnWrites {
  /** `data_version` as this connection saw it inside its last commit. */
  version: number;
  head: ChainPoint;
  /** The id this connection inserted last (unknown until it has inserted one): the next row's id is this + 1. */
  lastId?: number;
  /** Rows this connection opened and has not completed, by id, with every column as stored. */
  open: Map<number, AuditRecord>;
}

const known = new WeakMap<DatabaseSync, OwnWrites>();

/** `PRAGMA data_version` of `db` (call inside the write transaction: no other commit can come between). */
export function dataVersion(db: DatabaseSync): number {
  const row = statement(db, 'PRAGMA data_version').get() as { data_version?: number | bigint } | undefined;
  return Number(row?.data_version ?? -1);
}

/** What `db` knows of its own writes when nothing else has written since (`version` read in this transaction). */
export function ownWrites(db: DatabaseSync, version: number): OwnWrites | undefined {
  const own = known.get(db);
  return own && own.version === version ? own : undefined;
}

/** Records a commit of `db` (after it succeeded): `own` when the cache held before it, else a fresh one. */
export function rememberCommit(db: DatabaseSync, version: number, head: ChainPoint, own: OwnWrites | undefined, change: (own: OwnWrites) => void): void {
  const next: OwnWrites = own ?? { version, head, open: new Map() };
  next.version = version;
  next.head = head;
  change(next);
  known.set(db, next);
}

/** Forgets what `db` knew (after a failed write: the file decides again). */
export function forgetOwnWrites(db: DatabaseSync): void {
  known.delete(db);
}
