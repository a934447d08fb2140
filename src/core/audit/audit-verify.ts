import type { DatabaseSync } from 'node:sqlite';
import type { AuditVerifyResult } from '../../shared/domain/audit';
import { readAnchor, readHead } from './audit-meta';
import { walkChain } from './audit-walk';

/**
 * Checks the whole chain (see audit-chain.ts): every entry from the anchor on, recomputed from the stored
 * columns, with no gaps, ending exactly at the stored head. Names the first row where it breaks.
 */
export function verifyAuditChain(db: DatabaseSync): AuditVerifyResult {
  if (db.isTransaction) return verifySnapshot(db);
  // One read transaction: the head and every entry come from the same snapshot while others write.
  db.exec('BEGIN');
  try {
    return verifySnapshot(db);
  } finally {
    db.exec('COMMIT');
  }
}

function verifySnapshot(db: DatabaseSync): AuditVerifyResult {
  const anchor = readAnchor(db);
  if (!anchor) return { ok: false, rows: 0, reason: 'The record of pruned rows (the chain anchor) is damaged.' };
  const head = readHead(db);
  if (!head) return { ok: false, rows: 0, reason: 'The record of the newest chain entry (the chain head) is damaged.', pruned: anchor.pruned };
  const walk = walkChain(db, anchor);
  if (walk.problem) return { ok: false, rows: walk.rows, brokenAt: walk.problem.rowId, reason: walk.problem.reason, pruned: anchor.pruned };
  if (walk.last.seq !== head.seq || walk.last.hash !== head.hash) {
    const after = walk.lastRowId === undefined ? 'the chain is empty' : `the last entry found belongs to row ${walk.lastRowId}`;
    const reason = walk.last.seq < head.seq
      ? `The newest ${head.seq - walk.last.seq} chain entries are missing (${after}): rows were deleted.`
      : `The chain does not end where it was last written (${after}): rows were changed or the head was rewritten.`;
    return { ok: false, rows: walk.rows, brokenAt: walk.lastRowId, reason, pruned: anchor.pruned };
  }
  return { ok: true, rows: walk.rows, pruned: anchor.pruned };
}
