import { existsSync } from 'node:fs';
import type { DatabaseSync } from 'node:sqlite';
import { SandpitError, isSandpitError, toErrorBody } from '../../shared/api/errors';
import type { AuditEntry, AuditExportFormat, AuditSummary, AuditVerifyResult } from '../../shared/domain/audit';
import { isOwnerDead } from '../sandbox/instance-identity';
import type { InstanceIdentity } from '../sandbox/instance-identity';
import type { Logger } from '../log';
import { silentLogger } from '../log';
import type { AuditRecord } from './audit-chain';
import { BUSY_TIMEOUT_MS, openAuditDatabase } from './audit-database';
import { AuditSyncer } from './audit-syncer';
import { boundedExport } from './audit-export';
import type { BoundedExport } from './audit-export';
import { getAuditRow, iterateAuditRows, listAuditRows } from './audit-query';
import type { AuditPage, AuditPageQuery, AuditScope } from './audit-query';
import { toAuditSummary } from './audit-record';
import { pruneAuditRows } from './audit-retention';
import { verifyAuditChainInSlices } from './audit-verify';
import { AuditJournal, journalPath, recoverJournal } from './audit-journal';
import { JournalWriter } from './audit-journal-writer';
import { appendClose, appendOpen } from './audit-writer';
import type { AuditFinish, AuditStart } from './audit-writer';

const PRUNE_EVERY_MS = 6 * 3_600_000;
/** What one `audit.export` answer may hold; `sandpit audit export` streams any size. */
export const MAX_EXPORT_CHARS = 8 * 1024 * 1024;

export interface AuditStoreOptions {
  /** $SANDPIT_HOME/audit.db */
  path: string;
  /** This core: recorded as each row's owner, so a later start can tell its rows were abandoned. */
  identity: InstanceIdentity;
  /** Days a finished row is kept; 0 keeps every row forever. */
  retentionDays?: number;
  log?: Logger;
  /**
   * This process is the log's only writer (the core, which holds the data folder: home-lock.ts): each step is
   * durable once written to the journal and reaches the table in batches (audit-journal-writer.ts). Without it
   * (tests, tools), every step is its own commit and several processes may write the same file.
   */
  soleWriter?: boolean;
}

/** How soon after a write the WAL is synced to the disk (a checkpoint): the most a power cut can lose. */
const SYNC_WITHIN_MS = 1_000;

/**
 * The audit log of one core: every call that runs code is written `running` before it runs and completed
 * after, each step chained into the hash chain (audit-chain.ts) and surviving any crash or kill of the process
 * once `begin`/`complete` returns. The core (`soleWriter`) writes each step as a line of its journal and the
 * syncer thread commits them to the table in batches (audit-journal-writer.ts); other stores commit each step
 * (audit-writer.ts). Either way a step is on the disk itself within a second (audit-database.ts). Opening it
 * applies a journal a dead core left, closes rows left `running` by a dead process as `interrupted` and applies
 * the retention.
 */
export class AuditStore {
  private readonly db: DatabaseSync;
  private readonly log: Logger;
  private readonly pruneTimer: NodeJS.Timeout;
  private retentionDays: number;
  private closed = false;
  private syncTimer: NodeJS.Timeout | undefined;
  private readonly syncer: AuditSyncer;
  private verifying: Promise<AuditVerifyResult> | undefined;
  private readonly writer: JournalWriter | undefined;

  private constructor(private readonly options: AuditStoreOptions) {
    this.log = (options.log ?? silentLogger).child({ component: 'audit' });
    this.retentionDays = options.retentionDays ?? 0;
    this.db = openAuditDatabase(options.path);
    this.syncer = new AuditSyncer({
      path: options.path,
      busyTimeoutMs: BUSY_TIMEOUT_MS,
      log: this.log,
      checkpointHere: () => this.checkpointHere(),
      onApplied: (seq) => this.writer?.confirmed(seq),
      onApplyFailed: (seq) => this.writer?.applyHere(seq),
    });
    try {
      // Steps a killed or crashed Sandpit had only in its journal go into the table first.
      recoverJournal(this.db, options.path, options.identity, this.log);
      this.recoverAbandoned();
      this.prune();
      // A journal still there is a live writer's (recovery applies only a gone one's): this store writes to the table.
      if (options.soleWriter && !existsSync(journalPath(options.path))) this.writer = new JournalWriter({ db: this.db, journal: new AuditJournal(journalPath(options.path), options.identity), syncer: this.syncer, owner: options.identity });
    } catch (error) {
      this.syncer.close();
      this.db.close();
      throw error;
    }
    this.pruneTimer = setInterval(() => this.prune(), PRUNE_EVERY_MS);
    this.pruneTimer.unref();
  }

  static open(options: AuditStoreOptions): AuditStore {
    return new AuditStore(options);
  }

  /** Writes the `running` row of a call that is about to run; returns it once it is durable (journal or table). */
  begin(start: AuditStart): AuditSummary {
    const db = this.open();
    const row = toAuditSummary(this.writer ? this.writer.begin(start) : appendOpen(db, start, this.options.identity));
    this.syncSoon();
    return row;
  }

  /** Completes a row; returns it once the completion is durable (journal or table). */
  complete(id: number, finish: AuditFinish): AuditSummary {
    const db = this.open();
    const journaled = this.writer?.complete(id, finish);
    if (journaled) {
      this.syncSoon();
      return toAuditSummary(journaled);
    }
    // Not a row the journal opened: the table answers (already completed, unknown, or opened before).
    this.writer?.settle();
    const row = toAuditSummary(appendClose(db, id, finish));
    this.writer?.resync();
    this.syncSoon();
    return row;
  }

  /**
   * A checkpoint within SYNC_WITHIN_MS: the WAL is synced to the disk, then copied into the database — by the
   * syncer thread, so its fsyncs never hold up the event loop (audit-syncer.ts).
   */
  private syncSoon(): void {
    if (this.syncTimer || this.closed) return;
    this.syncTimer = setTimeout(() => {
      this.syncTimer = undefined;
      if (!this.closed) this.syncer.checkpoint();
    }, SYNC_WITHIN_MS);
    this.syncTimer.unref();
  }

  private checkpointHere(): void {
    if (this.closed) return;
    try {
      this.db.exec('PRAGMA wal_checkpoint(PASSIVE)');
    } catch (error) {
      this.log.warn('could not sync the audit log to the disk', { error: toErrorBody(error).message });
    }
  }

  get(id: number, principal?: string): AuditEntry | undefined {
    return getAuditRow(this.settled(), id, principal);
  }

  list(query: AuditPageQuery): AuditPage {
    return listAuditRows(this.settled(), query);
  }

  /**
   * Checks the whole hash chain, on a read-only connection of its own and in slices: runs and the panel go on
   * while a long log is checked (a check asked for while one runs shares its answer).
   */
  verify(): Promise<AuditVerifyResult> {
    this.settled();
    this.verifying ??= (async () => {
      const db = openAuditDatabase(this.options.path, { readOnly: true });
      try {
        return await verifyAuditChainInSlices(db);
      } finally {
        db.close();
      }
    })().finally(() => {
      this.verifying = undefined;
    });
    return this.verifying;
  }

  /** The rows of one session, oldest first (at most `maxRows`): what its notebook and its replay are made of. */
  sessionRows(sessionId: string, principal: string | undefined, maxRows: number): AuditEntry[] {
    const rows: AuditEntry[] = [];
    for (const row of iterateAuditRows(this.settled(), { filters: { sessionId }, principal })) {
      if (rows.length >= maxRows) break;
      rows.push(row);
    }
    return rows;
  }

  export(format: AuditExportFormat, scope: AuditScope, maxRows: number, maxChars = MAX_EXPORT_CHARS): BoundedExport {
    return boundedExport(format, iterateAuditRows(this.settled(), scope), maxRows, maxChars);
  }

  /** A new retention setting (days; 0 keeps every row), applied at once. */
  setRetentionDays(days: number): void {
    this.retentionDays = days;
    this.prune();
  }

  /** Applies the retention setting now; returns the number of rows removed. Never throws. */
  prune(now: Date = new Date()): number {
    if (this.closed || !(this.retentionDays > 0)) return 0;
    try {
      this.writer?.settle();
      const removed = pruneAuditRows(this.db, this.retentionDays, now);
      if (removed > 0) this.log.info('pruned old audit rows', { removed, retentionDays: this.retentionDays });
      return removed;
    } catch (error) {
      this.log.warn('failed to prune the audit log', { error: toErrorBody(error).message });
      return 0;
    }
  }

  /**
   * Completes this core's rows that are still `running` as interrupted (the core is shutting down), then
   * closes the database. Idempotent.
   */
  close(): void {
    if (this.closed) return;
    try {
      this.writer?.close();
    } catch (error) {
      this.log.warn('failed to put the audit journal into the table; it stays beside the log for the next start', { error: toErrorBody(error).message });
    }
    try {
      this.interruptRunning((record) => record.owner_instance === this.options.identity.instanceId, {
        errorCode: 'SHUTDOWN',
        errorMessage: 'Sandpit shut down before this call finished.',
      });
    } catch (error) {
      this.log.warn('failed to close running audit rows', { error: toErrorBody(error).message });
    }
    this.closed = true;
    clearInterval(this.pruneTimer);
    clearTimeout(this.syncTimer);
    // The syncer's connection first, so that this one is the last: the last connection's close checkpoints (and syncs) the WAL.
    this.syncer.close();
    this.db.close();
  }

  /** Rows left `running` by a process that is gone (crash, kill, power loss) become `interrupted`. */
  private recoverAbandoned(): void {
    const self = this.options.identity;
    const count = this.interruptRunning(
      (r) => isOwnerDead({ host: String(r.owner_host), pid: String(r.owner_pid), start: String(r.owner_start), instance: String(r.owner_instance) }, self),
      {
        errorCode: 'INTERRUPTED_BY_RESTART',
        errorMessage: 'Sandpit stopped (a crash, a kill or a power loss) before this call finished; found when it started again.',
        durationMs: null,
      },
    );
    if (count > 0) this.log.warn('audit rows of a stopped Sandpit marked interrupted', { count });
  }

  private interruptRunning(select: (record: AuditRecord) => boolean, how: Omit<AuditFinish, 'status'>): number {
    const running = this.db.prepare("SELECT * FROM audit WHERE status = 'running' ORDER BY id").all() as unknown as AuditRecord[];
    let count = 0;
    for (const record of running.filter(select)) {
      try {
        appendClose(this.db, Number(record.id), { ...how, status: 'interrupted' });
        count += 1;
      } catch (error) {
        // Another process may have completed it meanwhile (CONFLICT): nothing left to do for that row.
        if (!isSandpitError(error, 'CONFLICT')) throw error;
      }
    }
    return count;
  }

  private open(): DatabaseSync {
    if (this.closed) throw new SandpitError('INTERNAL', 'The audit log is closed (Sandpit is shutting down).');
    return this.db;
  }

  /** The connection, once the table has every step written so far (a read sees what was written before it). */
  private settled(): DatabaseSync {
    const db = this.open();
    this.writer?.settle();
    return db;
  }
}
