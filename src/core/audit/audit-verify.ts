import type { DatabaseSync } from 'node:sqlite';
import type { AuditVerifyResult } from '../../shared/domain/audit';
import { readAnchor, readHead } from './audit-meta';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { walkChainInSlices } from './audit-walk';

/**
 * Checks the whole chain (see audit-chain.ts): every entry from the anchor on, recomputed from the stored
 * columns, with no gaps, ending exactly at the stored head. Names the first row where it breaks.
 */
export function verifyAuditChain(db: DatabaseSync): AuditVerifyResult {
  const check = (): AuditVerifyResult => {
    const steps = verifySnapshot(db);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  };
  if (db.isTransaction) return check();
  // One read transaction: the head and every entry come from the same snapshot while others write.
  db.exec('BEGIN');
  try {
    return check();
  } finally {
    db.exec('COMMIT');
  }
}

/** The longest the check holds the event loop before letting others run. */
const TURN_MS = 4;

/**
 * The same check, letting the event loop run between slices of the chain, on a connection of its own (`db`,
 * read-only, so its snapshot holds while the store keeps writing): a million rows take seconds to check,
 * and the panel and every run go on meanwhile.
 */
export async function verifyAuditChainInSlices(db: DatabaseSync): Promise<AuditVerifyResult> {
  db.exec('BEGIN');
  try {
    const steps = verifySnapshot(db);
    let turnStarted = performance.now();
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
      if (performance.now() - turnStarted < TURN_MS) continue;
      await nextTurn();
      turnStarted = performance.now();
    }
  } finally {
    db.exec('COMMIT');
  }
}

function* verifySnapshot(db: DatabaseSync): Generator<void, AuditVerifyResult> {
  const anchor = readAnchor(db);
  if (!anchor) return { ok: false, rows: 0, reason: 'The record of pruned rows (the chain anchor) is damaged.' };
  const head = readHead(db);
  if (!head) return { ok: false, rows: 0, reason: 'The record of the newest chain entry (the chain head) is damaged.', pruned: anchor.pruned };
  const walk = yield* walkChainInSlices(db, anchor);
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
