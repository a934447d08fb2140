import { Worker } from 'node:worker_threads';
import { toErrorBody } from '../../shared/api/errors';
import type { Logger } from '../log';
import type { AuditStatement } from './audit-writer';

/** How long closing waits for the syncer's own connection to close (it may be inside a checkpoint's fsync). */
const CLOSE_WAIT_MS = 5_000;

/**
 * The syncer thread: its own connection to the audit database, which checkpoints the WAL when asked
 * (SQLite syncs the WAL, copies it into the database file and syncs that). Plain JavaScript, evaluated
 * as a worker, so it runs the same under tsx, the bundled CLI and Electron.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const closed = new Int32Array(workerData.closed);
const applied = new BigInt64Array(workerData.applied);
const db = new DatabaseSync(workerData.path, { timeout: workerData.busyTimeoutMs });
db.exec('PRAGMA synchronous = FULL; PRAGMA wal_autocheckpoint = 0;');
const statements = new Map();
const prepared = (sql) => {
  let s = statements.get(sql);
  if (!s) { s = db.prepare(sql); statements.set(sql, s); }
  return s;
};
parentPort.on('message', (message) => {
  if (message === 'close') {
    try { db.close(); } catch {}
    Atomics.store(closed, 0, 1);
    Atomics.notify(closed, 0);
    parentPort.close();
    return;
  }
  try {
    if (message.apply) {
      db.exec('BEGIN IMMEDIATE');
      try {
        for (const s of message.apply) prepared(s.sql).run(...s.params);
        db.exec('COMMIT');
      } catch (error) {
        if (db.isTransaction) db.exec('ROLLBACK');
        throw error;
      }
      if (Atomics.load(applied, 0) < BigInt(message.seq)) Atomics.store(applied, 0, BigInt(message.seq));
      Atomics.notify(applied, 0);
      parentPort.postMessage({ ok: true, seq: message.seq });
      return;
    }
    db.exec('PRAGMA wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ ok: true });
  } catch (error) {
    parentPort.postMessage({ ok: false, seq: message.apply ? message.seq : undefined, message: error instanceof Error ? error.message : String(error) });
  }
});
`;

export interface AuditSyncerOptions {
  path: string;
  busyTimeoutMs: number;
  log: Logger;
  /** Checkpoints on the calling thread: used when the syncer thread cannot start or has died. */
  checkpointHere(): void;
  /** Told when a batch (audit-journal.ts) is in the table, by the step it ends with. */
  onApplied?: (seq: number) => void;
  /** Told when the thread could not commit a batch (the caller applies it itself). */
  onApplyFailed?: (seq: number) => void;
}

/**
 * Brings the audit log's WAL to the disk off the event loop. A commit is in the WAL (the OS has it) when it
 * returns; the fsyncs of a checkpoint take milliseconds (tens on a busy disk), and on the event loop they
 * stalled every run in flight — so the store's connection never checkpoints on its own
 * (`wal_autocheckpoint = 0`) and asks this thread instead, within a second of each write. Should the thread
 * fail, the checkpoint runs on the calling thread as before: the log reaches the disk either way.
 */
export class AuditSyncer {
  private worker: Worker | undefined;
  private failed = false;
  private readonly closedFlag = new Int32Array(new SharedArrayBuffer(4));
  /** The last chain step the thread has committed to the table (read and waited on from this thread). */
  private readonly appliedStep = new BigInt64Array(new SharedArrayBuffer(8));

  constructor(private readonly options: AuditSyncerOptions) {}

  /**
   * Asks the thread to commit a journal batch (statements ending at chain step `seq`) to the table, with a full
   * sync; false when there is no thread (the caller applies it itself).
   */
  apply(statements: readonly AuditStatement[], seq: number): boolean {
    const worker = this.started();
    if (!worker) return false;
    worker.postMessage({ apply: statements, seq });
    return true;
  }

  /** The last step the thread has committed. */
  applied(): number {
    return Number(Atomics.load(this.appliedStep, 0));
  }

  /** Waits (blocking this thread, at most `timeoutMs`) until the thread has committed step `seq`; whether it has. */
  waitApplied(seq: number, timeoutMs: number): boolean {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const now = Atomics.load(this.appliedStep, 0);
      if (now >= BigInt(seq)) return true;
      const left = deadline - Date.now();
      if (left <= 0 || !this.worker) return false;
      Atomics.wait(this.appliedStep, 0, now, Math.min(left, 50));
    }
  }

  /** Asks for one checkpoint (answered asynchronously; a failure is logged and retried at the next write). */
  checkpoint(): void {
    const worker = this.started();
    if (!worker) {
      this.options.checkpointHere();
      return;
    }
    worker.postMessage('checkpoint');
  }

  /** Closes the thread's connection (waiting for a checkpoint in progress, at most CLOSE_WAIT_MS), then the thread. */
  close(): void {
    const worker = this.worker;
    this.worker = undefined;
    this.failed = true;
    if (!worker) return;
    worker.postMessage('close');
    Atomics.wait(this.closedFlag, 0, 0, CLOSE_WAIT_MS);
    void worker.terminate().catch(() => undefined);
  }

  private started(): Worker | undefined {
    if (this.worker || this.failed) return this.worker;
    try {
      const worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { path: this.options.path, busyTimeoutMs: this.options.busyTimeoutMs, closed: this.closedFlag.buffer, applied: this.appliedStep.buffer },
        // Its heap holds one connection and a batch of rows (at most BATCH_BYTES of text): keep the thread small.
        resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 },
      });
      worker.unref();
      worker.on('message', (reply: { ok: boolean; message?: string; seq?: number }) => {
        if (!reply.ok) this.options.log.warn('could not sync the audit log to the disk', { error: reply.message });
        if (reply.seq === undefined) return;
        if (reply.ok) this.options.onApplied?.(reply.seq);
        else this.options.onApplyFailed?.(reply.seq);
      });
      worker.on('error', (error) => this.fail(worker, error));
      worker.on('exit', (code) => {
        if (this.worker === worker) this.fail(worker, new Error(`the audit syncer thread exited (${code})`));
      });
      this.worker = worker;
    } catch (error) {
      this.fail(undefined, error);
    }
    return this.worker;
  }

  private fail(worker: Worker | undefined, error: unknown): void {
    if (worker && this.worker !== worker) return;
    this.worker = undefined;
    this.failed = true;
    this.options.log.warn('the audit syncer thread stopped; the audit log is synced on the main thread', { error: toErrorBody(error).message });
    this.options.checkpointHere();
  }
}
