import type { DatabaseSync } from 'node:sqlite';
import { GENESIS, parseChainPoint } from './audit-chain';
import { statement } from './audit-database';
import type { ChainPoint } from './audit-chain';

/** Where the walk over the chain starts: the genesis, or the last entry removed by retention. */
export interface ChainAnchor extends ChainPoint {
  /** Rows removed by retention so far. */
  pruned: number;
}

export function readMeta(db: DatabaseSync, key: string): string | undefined {
  const row = statement(db, 'SELECT value FROM audit_meta WHERE key = ?').get(key) as { value: unknown } | undefined;
  return typeof row?.value === 'string' ? row.value : undefined;
}

export function writeMeta(db: DatabaseSync, key: string, value: string): void {
  statement(db, 'INSERT INTO audit_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
}

/** The stored anchor; genesis when nothing was ever pruned; undefined when present but malformed. */
export function readAnchor(db: DatabaseSync): ChainAnchor | undefined {
  const text = readMeta(db, 'anchor');
  if (text === undefined) return { ...GENESIS, pruned: 0 };
  const point = parseChainPoint(text);
  if (!point) return undefined;
  const pruned = (JSON.parse(text) as { pruned?: unknown }).pruned;
  return { ...point, pruned: typeof pruned === 'number' && Number.isInteger(pruned) ? pruned : 0 };
}

export function writeAnchor(db: DatabaseSync, anchor: ChainAnchor): void {
  writeMeta(db, 'anchor', JSON.stringify(anchor));
}

/** The newest chain entry: the anchor when there is none; undefined when present but malformed. */
export function readHead(db: DatabaseSync): ChainPoint | undefined {
  const text = readMeta(db, 'head');
  if (text === undefined) {
    const anchor = readAnchor(db);
    return anchor && { seq: anchor.seq, hash: anchor.hash };
  }
  return parseChainPoint(text);
}

export function writeHead(db: DatabaseSync, head: ChainPoint): void {
  writeMeta(db, 'head', JSON.stringify(head));
}
