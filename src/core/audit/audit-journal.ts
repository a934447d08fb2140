import { closeSync, constants, existsSync, ftruncateSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import type { DatabaseSync } from 'node:sqlite';
import { isOwnerDead } from '../sandbox/instance-identity';
import type { InstanceIdentity } from '../sandbox/instance-identity';
import type { Logger } from '../log';
import { CLOSE_COLUMNS, LATER_CLOSE_COLUMNS, entryHash } from './audit-chain';
import type { AuditRecord, ChainPoint } from './audit-chain';
import { inWriteTransaction, statement } from './audit-database';
import { completeStatement, currentHead, headStatement, insertStatement } from './audit-writer';
import type { AuditStatement } from './audit-writer';

/**
 * One step of the chain as the journal keeps it until the table has it: the row a `begin` inserted (with its id
 * and open hash), or what a `complete` set on a row (with its close hash).
 */
export interface JournalEntry {
  seq: number;
  hash: string;
  open?: Partial<AuditRecord>;
  close?: { id: number; set: Partial<AuditRecord> };
}

/** The columns a journal entry may name (every column of the table). */
const COLUMNS = new Set<string>([...CLOSE_COLUMNS, ...LATER_CLOSE_COLUMNS, 'close_hash']);

/** Where the journal of the audit log at `dbPath` is. */
export function journalPath(dbPath: string): string {
  return `${dbPath}.pending`;
}

/** The statements that put `entries` into the table and move the head to the last one (each harmless to apply twice). */
export function entryStatements(entries: readonly JournalEntry[]): AuditStatement[] {
  const statements = entries.map((e) => (e.open ? insertStatement(e.open) : completeStatement(e.close!.id, e.close!.set)));
  const last = entries.at(-1);
  if (last) statements.push(headStatement({ seq: last.seq, hash: last.hash }));
  return statements;
}

/** Runs `statements` in one write transaction of `db` (the store's own thread, when the syncer thread cannot). */
export function applyStatements(db: DatabaseSync, statements: readonly AuditStatement[]): void {
  if (statements.length === 0) return;
  inWriteTransaction(db, () => {
    for (const s of statements) statement(db, s.sql).run(...s.params);
  });
}

/**
 * The audit log's journal: one line per chain step, appended (one write) before `begin` or `complete` returns, so
 * a step survives any crash or kill of the process from then on, like a commit in SQLite's WAL did; the table gets
 * the steps in batches, off the event loop (audit-store.ts). The first line names the process writing it: a later
 * process applies a journal whose writer is gone (recoverJournal) and leaves a live one's alone.
 */
export class AuditJournal {
  private fd: number | undefined;
  private headerBytes = 0;

  constructor(
    readonly path: string,
    private readonly owner: InstanceIdentity,
  ) {}

  /** Starts an empty journal (after recovery: nothing of an earlier one is left). */
  open(): void {
    // O_APPEND: every line goes at the end, also after `reset` has cut the file back to its first line.
    this.fd = openSync(this.path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_APPEND, 0o600);
    const header = `${JSON.stringify({ owner: this.owner })}\n`;
    this.headerBytes = Buffer.byteLength(header);
    this.write(header);
  }

  /** Appends one step; throws when it could not be written (the call is then refused, as a failed commit was). */
  append(entry: JournalEntry): void {
    this.write(`${JSON.stringify(entry)}\n`);
  }

  /** Empties the journal (every step in it is in the table, durably). */
  reset(): void {
    if (this.fd !== undefined) ftruncateSync(this.fd, this.headerBytes);
  }

  /** Closes and removes it (every step in it is in the table). */
  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
    rmSync(this.path, { force: true });
  }

  private write(text: string): void {
    if (this.fd === undefined) throw new Error('the audit journal is closed');
    const bytes = Buffer.from(text, 'utf8');
    for (let off = 0; off < bytes.length; ) off += writeSync(this.fd, bytes, off, bytes.length - off);
  }
}

/** The reason a journal entry read back from the disk is not taken, or undefined when it is right. */
function entryProblem(db: DatabaseSync, entry: JournalEntry, head: ChainPoint): string | undefined {
  if (!Number.isInteger(entry.seq) || entry.seq !== head.seq + 1) return `its step is ${String(entry.seq)}, not ${head.seq + 1}`;
  const fields = entry.open ?? entry.close?.set;
  if ((entry.open === undefined) === (entry.close === undefined) || typeof fields !== 'object' || fields === null) return 'it is neither a start nor a completion';
  for (const [column, value] of Object.entries(fields)) {
    if (!COLUMNS.has(column) && column !== 'id') return `it names a column "${column.slice(0, 40)}"`;
    if (value !== null && typeof value !== 'string' && typeof value !== 'number') return `its ${column} is not text or a number`;
  }
  if (entry.open) {
    const row = entry.open;
    if (!Number.isInteger(row.id) || Number(row.id) <= 0 || row.open_seq !== entry.seq || row.status !== 'running') return 'its row is not a new running row';
    if (statement(db, 'SELECT id FROM audit WHERE id = ?').get(row.id as number)) return `row ${String(row.id)} exists already`;
    if (entryHash(head.hash, 'open', row) !== row.open_hash || row.open_hash !== entry.hash) return `row ${String(row.id)} does not match its hash`;
    return undefined;
  }
  const { id, set } = entry.close!;
  const stored = statement(db, 'SELECT * FROM audit WHERE id = ?').get(id) as AuditRecord | undefined;
  if (!stored || stored.status !== 'running') return `row ${id} is not a running row`;
  const { close_hash: closeHash, ...rest } = set;
  if (rest.close_seq !== entry.seq || entryHash(head.hash, 'close', { ...stored, ...rest, close_hash: null }) !== closeHash || closeHash !== entry.hash) {
    return `the completion of row ${id} does not match its hash`;
  }
  return undefined;
}

/**
 * Applies the journal a process that is gone left beside the audit log (it was killed or crashed before the table
 * had every step). The file is input like any other read back from the disk: each entry must be the next step of
 * the chain and match its hash; the first one that does not stops the recovery there, and the file is kept aside
 * (`.rejected-<time>`) and named in the log. A journal whose writer is alive (another Sandpit) is left alone.
 * Returns the number of steps applied.
 */
export function recoverJournal(db: DatabaseSync, dbPath: string, self: InstanceIdentity, log: Logger): number {
  const path = journalPath(dbPath);
  if (!existsSync(path)) return 0;
  const lines = readFileSync(path, 'utf8').split('\n').filter((line) => line !== '');
  let owner: Partial<InstanceIdentity> | undefined;
  try {
    owner = (JSON.parse(lines[0] ?? '{}') as { owner?: Partial<InstanceIdentity> }).owner;
  } catch {
    owner = undefined;
  }
  if (owner && !isOwnerDead({ host: owner.host, pid: String(owner.pid), start: owner.processStart, instance: owner.instanceId }, self)) {
    return 0;
  }
  let applied = 0;
  let problem: string | undefined;
  inWriteTransaction(db, () => {
    let head = currentHead(db);
    const taken: JournalEntry[] = [];
    for (const line of lines.slice(1)) {
      let entry: JournalEntry;
      try {
        entry = JSON.parse(line) as JournalEntry;
      } catch {
        problem = 'a line is not JSON';
        break;
      }
      // Steps the table has already (applied before the crash) are passed over.
      if (typeof entry.seq === 'number' && entry.seq <= head.seq) continue;
      problem = entryProblem(db, entry, head);
      if (problem) break;
      for (const s of entryStatements([entry])) statement(db, s.sql).run(...s.params);
      taken.push(entry);
      head = { seq: entry.seq, hash: entry.hash };
    }
    applied = taken.length;
  });
  if (problem) {
    const aside = `${path}.rejected-${Date.now()}`;
    renameSync(path, aside);
    log.warn('the audit journal left by a stopped Sandpit was applied only up to a step that does not check out; the file is kept aside', { reason: problem, applied, file: aside });
  } else {
    rmSync(path, { force: true });
    if (applied > 0) log.info('audit steps of a stopped Sandpit applied from its journal', { applied });
  }
  return applied;
}
