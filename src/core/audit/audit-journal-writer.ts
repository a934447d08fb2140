import type { DatabaseSync } from 'node:sqlite';
import type { InstanceIdentity } from '../sandbox/instance-identity';
import { entryHash } from './audit-chain';
import type { AuditRecord, ChainPoint } from './audit-chain';
import { statement } from './audit-database';
import { applyStatements, entryStatements } from './audit-journal';
import type { AuditJournal, JournalEntry } from './audit-journal';
import type { AuditSyncer } from './audit-syncer';
import { closeValues, currentHead, openValues, storedRecord } from './audit-writer';
import type { AuditFinish, AuditStart } from './audit-writer';

/** How soon steps written to the journal are sent to the syncer thread as one batch (one commit, one sync). */
const BATCH_MS = 40;
/** A batch is sent at once when its text reaches this size (the thread's heap is small). */
const BATCH_BYTES = 4 * 1024 * 1024;
/** How long a read waits for the thread to have committed every step before applying them itself. */
const SETTLE_WAIT_MS = 5_000;

export interface JournalWriterDeps {
  /** The store's own connection: where the writer starts from, and where it applies a batch the thread could not. */
  db: DatabaseSync;
  journal: AuditJournal;
  syncer: Pick<AuditSyncer, 'apply' | 'applied' | 'waitApplied'>;
  owner: InstanceIdentity;
}

/** The next id AUTOINCREMENT would give: past every id ever used. */
function nextRowId(db: DatabaseSync): number {
  const seq = statement(db, "SELECT seq FROM sqlite_sequence WHERE name = 'audit'").get() as { seq?: number } | undefined;
  const max = statement(db, 'SELECT max(id) AS id FROM audit').get() as { id?: number | null } | undefined;
  return Math.max(Number(seq?.seq ?? 0), Number(max?.id ?? 0)) + 1;
}

/**
 * The audit log's writer when this process is its only writer (the core holds the data folder: home-lock.ts):
 * each chain step is computed here, from the head and ids it keeps, and is durable once its line is in the journal
 * (one write; audit-journal.ts) — the two commits per run that were most of a warm run's CPU are gone from the
 * event loop. Steps go to the table in batches, committed with a full sync by the syncer thread within
 * BATCH_MS; every read of the log first waits for the table to have them all (`settle`).
 */
export class JournalWriter {
  private head: ChainPoint;
  private nextId: number;
  /** Rows opened here and not completed, as stored. */
  private readonly open = new Map<number, AuditRecord>();
  /** Steps written and not yet sent to the thread. */
  private unsent: JournalEntry[] = [];
  private unsentBytes = 0;
  /** Steps written and not yet known to be in the table. */
  private unapplied: JournalEntry[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: JournalWriterDeps) {
    this.head = currentHead(deps.db);
    this.nextId = nextRowId(deps.db);
    deps.journal.open();
  }

  /** Writes a `running` row's open step; returns the row as it will be stored. Throws when the journal cannot be written. */
  begin(start: AuditStart): AuditRecord {
    const seq = this.head.seq + 1;
    const id = this.nextId;
    const values = { ...openValues(start, this.deps.owner, seq), id };
    const hash = entryHash(this.head.hash, 'open', values);
    const row = { ...values, open_hash: hash };
    this.write({ seq, hash, open: row });
    this.nextId += 1;
    const stored = storedRecord(row);
    this.open.set(id, stored);
    return stored;
  }

  /** Writes the completion of a row opened here; undefined when it was not (the store answers from the table). */
  complete(id: number, finish: AuditFinish): AuditRecord | undefined {
    const row = this.open.get(id);
    if (!row) return undefined;
    const seq = this.head.seq + 1;
    const set = closeValues(row, finish, seq);
    const record: AuditRecord = { ...row, ...set, close_hash: null };
    const hash = entryHash(this.head.hash, 'close', record);
    this.write({ seq, hash, close: { id, set: { ...set, close_hash: hash } } });
    this.open.delete(id);
    return { ...record, close_hash: hash };
  }

  /** Returns once the table has every step written so far (the thread's, or applied here when it lags or failed). */
  settle(): void {
    this.send();
    const target = this.head.seq;
    if (this.unapplied.length === 0) return;
    if (!this.deps.syncer.waitApplied(target, SETTLE_WAIT_MS)) applyStatements(this.deps.db, entryStatements(this.unapplied));
    this.confirmed(target);
  }

  /** The table has every step up to `seq` (the thread said so, or they were applied here). */
  confirmed(seq: number): void {
    this.unapplied = this.unapplied.filter((e) => e.seq > seq);
    if (this.unapplied.length === 0) this.deps.journal.reset();
  }

  /** The thread could not commit the batch ending at `seq`: applied here (every statement is harmless twice). */
  applyHere(seq: number): void {
    const pending = this.unapplied.filter((e) => e.seq <= seq);
    applyStatements(this.deps.db, entryStatements(pending));
    this.confirmed(seq);
  }

  /** After a write to the table outside the journal (a completion of a row opened before): the head as the table has it. */
  resync(): void {
    this.head = currentHead(this.deps.db);
  }

  /** Everything in the table, then the journal closed and removed. */
  close(): void {
    clearTimeout(this.timer);
    this.settle();
    this.deps.journal.close();
  }

  private write(entry: JournalEntry): void {
    this.deps.journal.append(entry);
    this.head = { seq: entry.seq, hash: entry.hash };
    this.unsent.push(entry);
    this.unapplied.push(entry);
    this.unsentBytes += JSON.stringify(entry.open ?? entry.close).length;
    if (this.unsentBytes >= BATCH_BYTES) this.send();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.send(), BATCH_MS);
      this.timer.unref();
    }
  }

  private send(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.unsent.length === 0) return;
    const batch = this.unsent;
    const seq = batch.at(-1)!.seq;
    this.unsent = [];
    this.unsentBytes = 0;
    const statements = entryStatements(batch);
    if (!this.deps.syncer.apply(statements, seq)) {
      applyStatements(this.deps.db, statements);
      this.confirmed(seq);
    }
  }
}
