import { SandpitError, toErrorBody } from '../../shared/api/errors';
import type { Logger } from '../log';
import type { MountedFolder } from '../folders/share-folders';
import type { SandboxFolder } from '../sandbox/sandbox-backend';
import { keptRecordAccepted } from './kept-check';
import { keptKey, keptRecordOf } from './kept-record';
import type { KeptRecord, KeptStore } from './kept-store';
import type { SandboxDriver } from './sandbox-driver';
import { Session } from './session';
import type { SessionTemplate } from './session-template';
import type { SessionServices } from './session-types';

export interface KeptSessionsDeps {
  /** Where kept sessions are recorded (the data folder); absent: no session can be kept. */
  store: KeptStore | undefined;
  /** The engine's network with a way out: the only network a kept record of the "open" policy may name. */
  openNetwork: string;
  /** Checks a kept record's shared folders again as it is taken over. */
  checkFolders?: (folders: readonly SandboxFolder[]) => Promise<SandboxFolder[]>;
  log: Logger;
}

/**
 * The lifecycle of kept sessions' records: written when a session is kept (so even a crash keeps it), written
 * again when what it records changes (its packages, its container and folders), brought up to date as Sandpit
 * quits, removed when the session is no longer kept or stopped for good; and the next core takes the sessions
 * over from their records. The SessionManager holds the sessions; this holds what is on disk for them.
 */
export class KeptSessions {
  /** What each kept session's record was last written with (keptKey). */
  private readonly saved = new Map<string, string>();
  /** A record being written again: a stop waits for it, so the record it removes is not written back after. */
  private readonly writes = new Map<string, Promise<void>>();

  private readonly store: KeptStore | undefined;
  private readonly log: Logger;

  constructor(private readonly deps: KeptSessionsDeps) {
    this.store = deps.store;
    this.log = deps.log;
  }

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

  /**
   * A kept session an earlier core left, taken over from its record as paused (its container stopped, its storage
   * there; it resumes on first use). Its MCP owner ended with that core: it is shared, usable by every client, like
   * sessions made in the panel. Undefined when the record is refused or its sandbox cannot be taken over (the record
   * stays, and nothing of it is started).
   */
  async adopt(
    record: KeptRecord,
    make: (template: SessionTemplate, folders: readonly MountedFolder[]) => SandboxDriver,
    services: SessionServices,
  ): Promise<Session | undefined> {
    if (!(await keptRecordAccepted(record, this.deps.openNetwork, this.log, this.deps.checkFolders))) return undefined;
    const template: SessionTemplate = { language: record.language, image: record.image, limits: record.limits, network: record.network, isolation: record.isolation };
    const folders = record.folders ?? [];
    const runtime = make(template, folders);
    try {
      await runtime.adopt(record.sandbox);
    } catch (error) {
      this.log.warn('could not take over a kept session; its record stays', { sessionId: record.id, error: toErrorBody(error).message });
      return undefined;
    }
    const session = new Session(
      runtime,
      {
        language: record.language,
        image: record.image,
        limits: record.limits,
        name: record.name,
        environment: record.environment,
        networkPolicy: record.networkPolicy,
        isolation: record.isolation,
        client: record.client,
        owner: undefined,
        idleTtlMs: record.idleTtlMs,
        fromPool: false,
      },
      services,
      'paused',
      { kept: true, createdAt: new Date(record.createdAt), packages: record.packages, pausedBy: 'quit', ...(record.history ? { history: record.history } : {}), ...(record.runs !== undefined ? { runs: record.runs } : {}) },
      folders,
    );
    // The record is what it holds now.
    this.saved.set(session.id, keptKey(session));
    return session;
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
