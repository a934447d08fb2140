import type { DatabaseSync } from 'node:sqlite';
import { inWriteTransaction } from './audit-database';
import { readAnchor, writeAnchor } from './audit-meta';
import { walkChain } from './audit-walk';
import type { ChainPoint } from './audit-chain';

const DAY_MS = 24 * 3_600_000;

/**
 * Removes the rows that finished before `now - retentionDays` (0 keeps everything), oldest chain entries
 * first, in a way verify understands: it cuts the chain only where every entry up to the cut belongs to a
 * removed row (a row still running, or finished recently, stops the cut before its start), and records the
 * last removed entry as the new anchor. Entries are checked while walking: the cut never passes a broken
 * entry, so pruning cannot hide tampering. Returns how many rows were removed.
 */
export function pruneAuditRows(db: DatabaseSync, retentionDays: number, now: Date = new Date()): number {
  if (!(retentionDays > 0)) return 0;
  const cutoff = new Date(now.getTime() - retentionDays * DAY_MS).toISOString();
  return inWriteTransaction(db, () => {
    const anchor = readAnchor(db);
    if (!anchor) return 0;
    const open = new Set<number>();
    const found: { cut?: ChainPoint } = {};
    walkChain(db, anchor, ({ kind, seq, hash, record }) => {
      const finishedAt = record.finished_at;
      if (record.status === 'running' || typeof finishedAt !== 'string' || finishedAt >= cutoff) return false;
      const id = Number(record.id);
      if (kind === 'open') open.add(id);
      else open.delete(id);
      if (open.size === 0) found.cut = { seq, hash };
      return true;
    });
    const { cut } = found;
    if (!cut) return 0;
    const removed = db.prepare('DELETE FROM audit WHERE close_seq IS NOT NULL AND close_seq <= ?').run(cut.seq).changes;
    writeAnchor(db, { ...cut, pruned: anchor.pruned + Number(removed) });
    return Number(removed);
  });
}
