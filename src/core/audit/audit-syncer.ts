import { Worker } from 'node:worker_threads';
import { toErrorBody } from '../../shared/api/errors';
import type { Logger } from '../log';

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
const db = new DatabaseSync(workerData.path, { timeout: workerData.busyTimeoutMs });
db.exec('PRAGMA synchronous = FULL');
parentPort.on('message', (message) => {
  if (message === 'close') {
    try { db.close(); } catch {}
    Atomics.store(closed, 0, 1);
    Atomics.notify(closed, 0);
    parentPort.close();
    return;
  }
  try {
    db.exec('PRAGMA wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ ok: true });
  } catch (error) {
    parentPort.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) });
  }
});
`;

export interface AuditSyncerOptions {
  path: string;
  busyTimeoutMs: number;
  log: Logger;
  /** Checkpoints on the calling thread: used when the syncer thread cannot start or has died. */
  checkpointHere(): void;
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

  constructor(private readonly options: AuditSyncerOptions) {}

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
        workerData: { path: this.options.path, busyTimeoutMs: this.options.busyTimeoutMs, closed: this.closedFlag.buffer },
        // Its heap holds one connection: keep the thread small.
        resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
      });
      worker.unref();
      worker.on('message', (reply: { ok: boolean; message?: string }) => {
        if (!reply.ok) this.options.log.warn('could not sync the audit log to the disk', { error: reply.message });
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
