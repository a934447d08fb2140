import { SandpitError, toErrorBody } from '../../shared/api/errors';
import type { Logger } from '../log';
import type { MountedFolder } from '../folders/share-folders';
import type { SandboxFolder } from '../sandbox/sandbox-backend';
import { keptRecordAccepted } from './kept-check';
import { keptKey, keptRecordOf } from './kept-record';
import type { KeptRecord, KeptStore } from './kept-store';
import type { SandboxDriver } from './sandbox-driver';
import { Session } from './session';
import type { ContainerEnv, SessionTemplate } from './session-template';
import type { SecretUse } from '../../shared/domain/secret';
import type { SessionServices } from './session-types';

/** What a kept session on the package proxy is connected with by the core that takes it over. */
export interface KeptConnection {
  network?: string;
  containerEnv?: ContainerEnv;
  /** The folder of this core's CA bundle, when its environment may use secrets. */
  caDir?: string;
  secrets?: SecretUse[];
}

export interface KeptSessionsDeps {
  /** Where kept sessions are recorded (the data folder); absent: no session can be kept. */
  store: KeptStore | undefined;
  /** The engine's network with a way out: the only network a kept record of the "open" policy may name. */
  openNetwork: string;
  /** Checks a kept record's shared folders again as it is taken over. */
  checkFolders?: (folders: readonly SandboxFolder[]) => Promise<SandboxFolder[]>;
  /** How this core connects a session on the package proxy (absent: it runs no egress proxy; such sessions stay on disk). */
  reconnect?: (record: KeptRecord) => Promise<KeptConnection>;
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
   * stays, and nothing of it is started). A session on the package proxy gets its container made again, on this
   * core's proxy network with a pass of this core's, its environment's secrets as they are now, the secrets the person
   * ticked for it (by name; one deleted since is dropped, with a note) and this core's CA bundle (the ones it was made
   * with ended with the old core); its workspace and packages stay, and its record is written again at once with the
   * new container.
   */
  async adopt(
    record: KeptRecord,
    make: (template: SessionTemplate, folders: readonly MountedFolder[]) => SandboxDriver,
    services: SessionServices,
  ): Promise<Session | undefined> {
    if (!(await keptRecordAccepted(record, this.deps.openNetwork, this.log, this.deps.checkFolders))) return undefined;
    let connection: KeptConnection | undefined;
    if (record.networkPolicy === 'packages') {
      try {
        if (!this.deps.reconnect) throw new SandpitError('INVALID_INPUT', 'this Sandpit runs no egress proxy for it');
        connection = await this.deps.reconnect(record);
      } catch (error) {
        this.log.warn('could not connect a kept session to the egress proxy; it is not taken over and its record stays', { sessionId: record.id, error: toErrorBody(error).message });
        return undefined;
      }
    }
    // A secret the person ticked for it and deleted since is dropped, with a note (its name only).
    const dropped = (record.secrets ?? []).filter((name) => !connection?.secrets?.some((s) => s.name === name && s.forSession));
    if (dropped.length) this.log.warn('a kept session comes back without secrets that were deleted since', { sessionId: record.id, secrets: dropped });
    const template: SessionTemplate = {
      language: record.language,
      image: record.image,
      limits: record.limits,
      network: connection ? connection.network : record.network,
      env: connection?.containerEnv,
      isolation: record.isolation,
      ...(connection?.caDir ? { caDir: connection.caDir } : {}),
    };
    const folders = record.folders ?? [];
    const runtime = make(template, folders);
    try {
      await runtime.adopt(record.sandbox, { remake: connection !== undefined });
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
        ...(connection?.secrets?.length ? { secrets: connection.secrets } : {}),
      },
      services,
      'paused',
      { kept: true, createdAt: new Date(record.createdAt), packages: record.packages, pausedBy: 'quit', ...(record.history ? { history: record.history } : {}), ...(record.runs !== undefined ? { runs: record.runs } : {}) },
      folders,
    );
    if (connection) {
      // Its new container and network are what the record says from now on.
      await this.save(session, false).catch((error: unknown) => this.log.warn('could not update a kept session record', { sessionId: session.id, error: toErrorBody(error).message }));
    } else {
      // The record is what it holds now.
      this.saved.set(session.id, keptKey(session));
    }
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
