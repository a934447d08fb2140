import { SandpitError, toErrorBody } from '../../shared/api/errors';
import type { Logger } from '../log';
import { keptKey, keptRecordOf } from './kept-record';
import type { KeptRecord, KeptStore } from './kept-store';
import type { Session } from './session';

/**
 * The lifecycle of kept sessions' records: written when a session is kept (so even a crash keeps it), written
 * again when what it records changes (its packages, its container and folders), brought up to date as Sandpit
 * quits, removed when the session is no longer kept or stopped for good. The SessionManager holds the sessions;
 * this holds what is on disk for them.
 */
export class KeptSessions {
  /** What each kept session's record was last written with (keptKey). */
  private readonly saved = new Map<string, string>();
  /** A record being written again: a stop waits for it, so the record it removes is not written back after. */
  private readonly writes = new Map<string, Promise<void>>();

  constructor(
    /** Where kept sessions are recorded (the data folder); absent: no session can be kept. */
    private readonly store: KeptStore | undefined,
    private readonly log: Logger,
  ) {}

  /**
   * A sandbox whose variables differ per sandbox (the package proxy's credential, issued to this run of
   * Sandpit) cannot outlive it: keeping one is refused, saying why.
   */
  assertKeepable(perSandboxPass: boolean): void {
    if (perSandboxPass) {
      throw new SandpitError(
        'INVALID_INPUT',
        'A session whose network goes through the package proxy cannot be kept: the proxy pass it was started with ends when Sandpit quits. Keep a session without network (or with an open network) instead.',
      );
    }
  }

  /** Writes a kept session's record (its sandbox's too) and, when `announce`, marks it kept. */
  async save(session: Session, announce: boolean): Promise<void> {
    if (!this.store) throw new SandpitError('INVALID_INPUT', 'Sessions cannot be kept here: this Sandpit has no data folder for them.');
    await this.store.save(keptRecordOf(session));
    this.saved.set(session.id, keptKey(session));
    if (announce) session.setKept(true);
  }

  /** A kept session changed: its record is written again when what it records is not what was written. */
  changed(session: Session): void {
    if (!session.kept || this.saved.get(session.id) === keptKey(session)) return;
    const write = this.save(session, false).catch((error: unknown) => this.log.warn('could not update a kept session record', { sessionId: session.id, error: toErrorBody(error).message }));
    this.writes.set(session.id, write);
  }

  /** Keeps it no longer: its record goes (after a write in flight), the session says so. */
  async unkeep(session: Session): Promise<void> {
    await this.writes.get(session.id);
    await this.store?.remove(session.id);
    session.setKept(false);
  }

  /** Stopped for good: no longer kept either (its record goes before the sandbox, so a crash in between cannot bring it back). */
  async forget(session: Session): Promise<void> {
    await this.writes.get(session.id);
    if (session.kept) await this.store?.remove(session.id);
    this.saved.delete(session.id);
    this.writes.delete(session.id);
  }

  /** The records an earlier core left in the data folder (none without a data folder). */
  records(): Promise<KeptRecord[]> {
    return this.store ? this.store.list() : Promise.resolve([]);
  }

  /** A session taken over from its record: the record is what it holds now. */
  adopted(session: Session): void {
    this.saved.set(session.id, keptKey(session));
  }

  /** One kept session at quit: container stopped, record brought up to date. False (and logged) when that failed. */
  async keepForQuit(session: Session): Promise<boolean> {
    try {
      await session.pauseForQuit();
      await this.save(session, false);
      this.log.info('kept session paused as Sandpit quits', { sessionId: session.id });
      return true;
    } catch (error) {
      this.log.warn('could not keep a session as Sandpit quits; it is stopped instead', { sessionId: session.id, error: toErrorBody(error).message });
      return false;
    }
  }
}
