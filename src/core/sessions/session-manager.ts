import { isDeepStrictEqual } from 'node:util';
import { SandpitError, toErrorBody } from '../../shared/api/errors';
import { resolveLimits } from '../../shared/domain/limits';
import type { Limits } from '../../shared/domain/limits';
import type { ChannelKind, SessionInfo } from '../../shared/domain/session';
import type { StopCause } from '../../shared/domain/execution';
import type { SandpitConfig } from '../config';
import type { EventBus } from '../events/event-bus';
import type { ArtifactStore } from '../files/artifact-store';
import type { Logger } from '../log';
import type { InstallSettings } from '../installers/helper-install';
import { newId } from '../util/ids';
import { Semaphore } from '../util/semaphore';
import type { EngineMonitor } from './engine-monitor';
import type { KeptRecord, KeptStore } from './kept-store';
import { KeptSessions } from './kept-sessions';
import type { KeptConnection } from './kept-sessions';
import type { SandboxBackend, SandboxFolder } from '../sandbox/sandbox-backend';
import type { SandboxDriver } from './sandbox-driver';
import { makeSandboxDriver } from './sandbox-factory';
import { QuietMoments } from './quiet-moments';
import { RefillGate } from './refill-gate';
import { Session } from './session';
import type { MountedFolder } from '../folders/share-folders';
import type { SessionServices } from './session-types';
import type { SessionTemplate } from './session-template';
import type { CreateSessionInput } from './create-session-input';
import { WarmPools } from './warm-pools';
import type { WarmTemplate } from './warm-pools';
import { adoptWarmSandboxes, leaveWarmSandboxes } from './warm-handover-flow';
import type { HandOverDeps } from './warm-handover-flow';

/** A new session's input (create-session-input.ts), where callers of the SessionManager have always found it. */
export type { CreateSessionInput } from './create-session-input';

export interface SessionManagerDeps {
  config: SandpitConfig;
  backend: SandboxBackend;
  engine: EngineMonitor;
  bus: EventBus;
  artifacts: ArtifactStore;
  /** Index URLs, install network and egress proxy of a session's installs. */
  installSettings(sessionId: string): InstallSettings | Promise<InstallSettings>;
  /**
   * Called once as a sandbox's removal for good begins: a stopped session's, a failed start's, a warm
   * sandbox discarded without ever becoming a session (e.g. to revoke its egress credential). Must not throw.
   */
  sandboxRemoved?(sessionId: string): void;
  /** Where kept sessions are recorded (the data folder); absent: no session can be kept. */
  kept?: KeptStore;
  /** The engine's network with a way out (sessions of the "open" policy): what a kept record of that policy must name. */
  openNetwork: string;
  /**
   * How a kept session on the package proxy is connected by this core (its network, its proxy pass, its secrets and
   * the CA bundle): they ended with the core that made it, so its container is made again with these. Throws when
   * it cannot be connected now (the session is then not taken over, and its record stays).
   */
  reconnectKept?: (record: KeptRecord) => Promise<KeptConnection>;
  /** Checks shared folders again before each container that mounts them is made or started (see SandboxSpec). */
  checkFolders?: (folders: readonly SandboxFolder[]) => Promise<SandboxFolder[]>;
  /** Removes the layers of a stopped session's review folders (their pending changes end with it). */
  dropLayers?: (layerPaths: readonly string[]) => Promise<void>;
  /** Warm sandboxes left for the next core when this one quits, and taken over from the last one (warm-handover.ts). */
  handOver?: HandOverDeps;
  log: Logger;
}

/**
 * The sessions: create (from a warm pool when one fits), find (with ownership), stop, idle TTL, max
 * sessions. Every operation on one session is the Session's own (its queue, its state machine).
 */
export class SessionManager {
  private readonly sessions = new Map<string, Session>();
  private readonly pools: WarmPools;
  private readonly services: SessionServices;
  private readonly log: Logger;
  private readonly nameCounters = new Map<string, number>();
  /** Kept sessions' records in the data folder. */
  private readonly kept: KeptSessions;
  private sweepTimer: NodeJS.Timeout | undefined;
  private disposed = false;
  /** Sessions being claimed or started: they count against maxSessions like the ones that exist. */
  private creating = 0;
  /** The warm sandboxes the last core left are being taken over: a claim waits for them rather than start one. */
  private adopting: Promise<void> | undefined;
  /** Quiet moments to end when Sandpit begins to quit. */
  private readonly quietMoments = new QuietMoments();
  /** Bulk work under way: containers replacing claimed warm ones wait for it to end. */
  private readonly refillGate = new RefillGate();

  constructor(private readonly deps: SessionManagerDeps) {
    this.log = deps.log.child({ component: 'sessions' });
    this.kept = new KeptSessions({
      store: deps.kept,
      openNetwork: deps.openNetwork,
      ...(deps.checkFolders ? { checkFolders: deps.checkFolders } : {}),
      ...(deps.reconnectKept ? { reconnect: deps.reconnectKept } : {}),
      log: this.log,
    });
    this.services = {
      slots: new Semaphore(deps.config.maxConcurrentRuns),
      queueTimeoutMs: deps.config.queueTimeoutMs,
      bus: deps.bus,
      artifacts: deps.artifacts,
      maxArtifactBytes: deps.config.maxArtifactBytes,
      maxArtifactsPerRun: deps.config.maxArtifactsPerRun,
      installSettings: (sessionId) => deps.installSettings(sessionId),
      engine: deps.engine,
      log: this.log,
    };
    this.pools = new WarmPools({
      size: deps.config.poolSize,
      defaultLimits: deps.config.defaultLimits,
      channel: () => deps.backend.channel,
      make: (template) => this.makeRuntime(newId('ses'), template, true),
      log: this.log,
      mayRefill: () => this.refillGate.clear(),
    });
    this.sweepTimer = setInterval(() => void this.sweepIdle(), Math.min(30_000, Math.max(1_000, deps.config.idleTtlMs / 4)));
    this.sweepTimer.unref();
    // A kept session's record follows its packages as they are installed, and its container and folders when
    // the person changes its shared folders (so even a crash keeps them).
    deps.bus.on('session.updated', (info) => {
      const session = this.sessions.get(info.id);
      if (session && !this.disposed) this.kept.changed(session);
    });
  }

  get logger(): Logger {
    return this.log;
  }

  /** The agent channel every session of this backend speaks over. */
  get channelKind(): ChannelKind {
    return this.deps.backend.channel;
  }

  /** Whether warm pools are on (a pool size above 0) and the manager is not shutting down. */
  get pooling(): boolean {
    return this.pools.size > 0 && !this.disposed;
  }

  /** The global run slots (for tests and the benchmark's view of the cap). */
  get slots(): Semaphore {
    return this.services.slots;
  }

  /**
   * Starts warm pools for these templates (the default limits), filling side by side up to their size (or
   * `upTo` ready sandboxes, when smaller); resolves when they got there (or gave up).
   */
  warmUp(templates: WarmTemplate[], upTo?: number): Promise<void> {
    // Not once disposed: a pool made then would never be emptied.
    if (!this.pooling) return Promise.resolve();
    return this.pools.warmUp(templates, upTo);
  }

  /** Whether the last core of this data folder left warm sandboxes for this one (not taken over yet). */
  async handedOverWaiting(): Promise<boolean> {
    return this.deps.handOver !== undefined && !this.disposed && (await this.deps.handOver.store.waiting());
  }

  /**
   * Takes over the warm sandboxes the last core of this data folder left (when they are of these templates) into
   * their pools, before the pools start their own: how many were taken.
   */
  async adoptHandedOver(templates: readonly WarmTemplate[]): Promise<number> {
    const handOver = this.deps.handOver;
    if (!handOver || this.disposed) return 0;
    // With pools off, nothing is taken: what was left goes to the reaper.
    const current = this.pools.size > 0 ? templates : [];
    let firstTaken: () => void = () => undefined;
    const first = new Promise<void>((resolve) => {
      firstTaken = resolve;
    });
    const adopting = adoptWarmSandboxes(
      current,
      this.pools.defaultLimits,
      (sessionId, template) => this.makeRuntime(sessionId, { ...template, limits: this.pools.defaultLimits }, true),
      (template, session) => this.pools.adopt(template, session),
      handOver,
      this.log,
      firstTaken,
    ).catch((error: unknown) => {
      this.log.warn('could not take over the warm sandboxes the last core left', { error: toErrorBody(error).message });
      return 0;
    });
    // A claim waits for the default language's (the first template's) only.
    const claimable = Promise.race([first, adopting.then(() => undefined)]);
    this.adopting = claimable;
    try {
      return await adopting;
    } finally {
      if (this.adopting === claimable) this.adopting = undefined;
    }
  }

  /**
   * Bulk work begins (a restore or a fork writing a workspace into its new sandbox): the warm sandboxes claimed
   * meanwhile are replaced once the returned release is called (or after two minutes), not beside it.
   */
  holdRefills(): () => void {
    return this.refillGate.hold();
  }

  /** Waits `ms`, or less when Sandpit begins to quit (so a quiet moment never holds a quit up). */
  quiet(ms: number): Promise<void> {
    if (this.disposed) return Promise.resolve();
    return this.quietMoments.wait(ms);
  }

  /** Throws DOCKER_UNAVAILABLE (saying what to do) unless the engine is up: callers check before slow preparations. */
  assertEngineUp(): void {
    this.deps.engine.assertUp();
  }

  async create(input: CreateSessionInput): Promise<Session> {
    this.assertOpen();
    this.assertEngineUp();
    // Counted before the first await, so creates that run at once cannot all pass the check.
    if (this.sessions.size + this.creating >= this.deps.config.maxSessions) {
      const starting = this.creating > 0 ? ` (${this.creating} of them starting)` : '';
      throw new SandpitError('LIMIT_EXCEEDED', `There are already ${this.sessions.size + this.creating} sessions${starting}, the maximum. Stop one first.`);
    }
    this.creating += 1;
    let counted = true;
    // Once the session is in the table it counts there, not here.
    const listed = (): void => {
      if (!counted) return;
      counted = false;
      this.creating -= 1;
    };
    try {
      return await this.openSession(input, listed);
    } finally {
      listed();
    }
  }

  private async openSession(input: CreateSessionInput, listed: () => void): Promise<Session> {
    const limits = resolveLimits({ ...input.baseLimits, ...input.limits }, this.pools.defaultLimits);
    const template: SessionTemplate = { language: input.language, image: input.image, limits, network: input.network, env: input.containerEnv, isolation: input.isolation ?? 'standard', ...(input.caDir ? { caDir: input.caDir } : {}) };
    // Sessions with limits of their own start cold (limits equal to the defaults are not their own: a restored
    // snapshot names its limits); every template of the defaults has a warm pool.
    // A bind mount is fixed when a container is made: sessions with shared folders start cold too.
    const folders = input.folders ?? [];
    const ownLimits = input.limits !== undefined && !isDeepStrictEqual(limits, this.pools.defaultLimits);
    const poolable = !ownLimits && folders.length === 0 && input.caDir === undefined && this.pools.size > 0;
    if (poolable && this.adopting) await this.adopting;
    const claimed = poolable ? await this.pools.claim(template) : undefined;
    const runtime = claimed ?? this.makeRuntime(newId('ses'), template, false, folders);
    const session = new Session(
      runtime,
      {
        language: input.language,
        image: input.image,
        limits,
        name: input.name ?? this.nextName(input),
        environment: input.environment,
        networkPolicy: input.networkPolicy ?? 'none',
        isolation: template.isolation,
        client: input.client,
        owner: input.owner,
        idleTtlMs: input.idleTtlMs ?? this.deps.config.idleTtlMs,
        fromPool: claimed !== undefined,
        ...(input.secrets?.length ? { secrets: input.secrets } : {}),
      },
      this.services,
      claimed ? 'ready' : 'starting',
      undefined,
      folders,
    );
    this.sessions.set(session.id, session);
    listed();
    this.deps.bus.emit('session.updated', session.info());
    if (!claimed) {
      try {
        await session.boot();
      } catch (error) {
        this.forget(session);
        // Sandpit began to quit while it started (and stopped it): that is what the caller is told.
        this.assertOpen();
        throw error;
      }
    }
    if (this.disposed) {
      // Disposed while the sandbox started: nobody would ever stop this one.
      await this.stop(session.id).catch(() => undefined);
      this.assertOpen();
    }
    if (input.keep) {
      try {
        await this.kept.save(session, true);
      } catch (error) {
        await this.stop(session.id).catch(() => undefined);
        throw error;
      }
    }
    this.log.info('session created', { sessionId: session.id, fromPool: claimed !== undefined, containerId: runtime.containerId });
    return session;
  }

  /** New pool size: every pool shrinks or grows now. */
  setPoolSize(size: number): void {
    this.pools.setSize(size);
  }

  /** New default limits for sessions created from now on; the pools are made again with them. */
  setDefaultLimits(limits: Limits): void {
    this.pools.setDefaultLimits(limits, this.deps.engine.current.state === 'up');
  }

  /** The warm pools: how many ready sandboxes each holds of how many, and whether it is filling. */
  poolStatus(): Array<{ key: string; ready: number; size: number; filling: boolean }> {
    return this.pools.status();
  }

  list(): SessionInfo[] {
    return [...this.sessions.values()].map((s) => s.info());
  }

  /** The session with this id, whoever owns it (the panel's and the core's own view). */
  session(sessionId: string): Session {
    const session = this.sessions.get(sessionId);
    if (!session) throw new SandpitError('SESSION_NOT_FOUND', `There is no session "${sessionId}". List sessions to see the ones that exist.`);
    return session;
  }

  /**
   * The session as `principal` may use it: its own, or one made in the panel (shared with every client).
   * Someone else's is refused as if it did not exist, so ids leak nothing. `principal` undefined is the panel.
   */
  access(sessionId: string, principal: string | undefined): Session {
    const session = this.sessions.get(sessionId);
    if (!session || !mayUse(session, principal)) {
      throw new SandpitError('SESSION_NOT_FOUND', `There is no session "${sessionId}" for this client. List sessions to see yours.`);
    }
    return session;
  }

  /** Sessions a principal may use (all of them for the panel). */
  listFor(principal: string | undefined): SessionInfo[] {
    return [...this.sessions.values()].filter((s) => mayUse(s, principal)).map((s) => s.info());
  }

  /**
   * A secret was deleted: every session that listed it (its environment's or its own) lists it no longer, and a kept
   * one's record is written again (session.updated). The proxy stopped putting its value in as the secret went.
   */
  forgetSecret(name: string): void {
    for (const session of this.sessions.values()) session.forgetSecret(name);
  }

  /**
   * Keeps a session across a restart of Sandpit, or no longer: its record in the data folder (written now, so
   * even a crash keeps it) or removed.
   */
  async setKept(sessionId: string, keep: boolean): Promise<Session> {
    const session = this.session(sessionId);
    if (keep) {
      await this.kept.save(session, true);
    } else {
      await this.kept.unkeep(session);
    }
    return session;
  }

  /** The kept sessions an earlier core left in the data folder, listed as paused (see KeptSessions.adopt). */
  async restoreKept(): Promise<number> {
    if (this.disposed) return 0;
    let restored = 0;
    for (const record of await this.kept.records()) {
      if (this.sessions.has(record.id)) continue;
      const session = await this.kept.adopt(record, (template, folders) => this.makeRuntime(record.id, template, false, folders), this.services);
      if (!session) continue;
      this.sessions.set(session.id, session);
      this.countName(record.environment?.name ?? record.language, record.name);
      this.deps.bus.emit('session.updated', session.info());
      restored += 1;
    }
    if (restored > 0) this.log.info('kept sessions listed as paused', { count: restored });
    return restored;
  }

  /** Stops a session for good; `cause` is what a run it cuts short is told (default: Sandpit stopped it). */
  async stop(sessionId: string, cause?: StopCause): Promise<void> {
    const session = this.session(sessionId);
    this.sessions.delete(sessionId);
    try {
      await this.kept.forget(session);
      await session.stop(cause);
    } finally {
      await this.deps.dropLayers?.(session.mountedFolders.flatMap((f) => (f.layerPath ? [f.layerPath] : []))).catch(() => undefined);
      this.deps.bus.emit('session.removed', { sessionId });
      this.log.info('session stopped', { sessionId });
    }
  }

  /**
   * Stops every session and empties every pool, but stays open: for a change of engine, after which
   * sessions and pools start on the new one.
   */
  async stopAll(): Promise<void> {
    await this.pools.empty();
    const cause: StopCause = { by: 'sandpit', why: 'the Docker engine it uses was changed' };
    await Promise.all([...this.sessions.keys()].map((id) => this.stop(id, cause).catch(() => undefined)));
  }

  /** Whether Sandpit is quitting (dispose began): runs that end now were stopped by the quit. */
  get quitting(): boolean {
    return this.disposed;
  }

  /** Sandpit quits: kept sessions' containers stop with their storage (and record) kept; every other session is removed. */
  async dispose(): Promise<void> {
    this.disposed = true;
    this.quietMoments.endAll();
    clearInterval(this.sweepTimer);
    // The warm sandboxes go (or are left for the next core) while the sessions are kept or stopped (a client closing
    // Sandpit waits a few seconds only).
    const handOver = this.deps.handOver;
    const pools = handOver && handOver.ms > 0 ? leaveWarmSandboxes(this.pools, handOver, this.log) : this.pools.empty();
    const kept = [...this.sessions.values()].filter((s) => s.kept);
    await Promise.all(
      kept.map(async (s) => {
        // Kept: out of the table (not removed). Else left in it: stopped with the others, so nothing of it is left half-kept.
        if (await this.kept.keepForQuit(s)) this.sessions.delete(s.id);
      }),
    );
    const cause: StopCause = { by: 'sandpit', why: 'Sandpit was quitting' };
    await Promise.all([pools, ...[...this.sessions.keys()].map((id) => this.stop(id, cause).catch(() => undefined))]);
  }

  /** Pools may try again after the engine came back; sessions start their own sandboxes again. */
  engineCameBack(): void {
    this.pools.refillAll();
    for (const session of this.sessions.values()) session.recoverAfterEngine();
  }

  /** After a restored "Python 3", new sessions of that environment count on from 4. */
  private countName(base: string, name: string): void {
    const n = name.startsWith(`${base} `) ? Number(name.slice(base.length + 1)) : NaN;
    if (Number.isInteger(n) && n > (this.nameCounters.get(base) ?? 0)) this.nameCounters.set(base, n);
  }

  private forget(session: Session): void {
    if (this.sessions.get(session.id) !== session) return;
    this.sessions.delete(session.id);
    this.deps.bus.emit('session.removed', { sessionId: session.id });
  }

  /** "Python 3": the environment's (or language's) name and the next number for it. */
  private nextName(input: CreateSessionInput): string {
    const base = input.environment?.name ?? input.language;
    const n = (this.nameCounters.get(base) ?? 0) + 1;
    this.nameCounters.set(base, n);
    return `${base} ${n}`;
  }

  /** The driver of a sandbox for session `id` (sandbox-factory.ts). */
  private makeRuntime(id: string, template: SessionTemplate, pooled: boolean, folders: readonly MountedFolder[] = []): SandboxDriver {
    return makeSandboxDriver(this.deps, id, template, pooled, folders);
  }

  /**
   * Idle sessions are stopped, or paused when the setting says so (Settings: idle action). A kept session is
   * always paused, never removed by its idle time: it was kept to last.
   */
  private async sweepIdle(): Promise<void> {
    if (this.disposed) return;
    for (const [id, s] of this.sessions) {
      if ((s.state === 'ready' || s.state === 'failed') && s.pending === 0 && s.lastUsedAt.getTime() < Date.now() - s.identity.idleTtlMs) {
        if (s.kept || this.deps.config.idleAction === 'pause') {
          this.log.info('pausing idle session', { sessionId: id });
          await s.pause('idle').catch((error: unknown) => this.log.warn('could not pause idle session', { sessionId: id, error: toErrorBody(error).message }));
          continue;
        }
        this.log.info('stopping idle session', { sessionId: id });
        await this.stop(id).catch((error: unknown) => this.log.warn('could not stop idle session', { sessionId: id, error: toErrorBody(error).message }));
      }
    }
  }

  private assertOpen(): void {
    if (this.disposed) throw new SandpitError('INTERNAL', 'Sandpit is shutting down: no new sessions are started.');
  }
}

function mayUse(session: Session, principal: string | undefined): boolean {
  return principal === undefined || session.identity.owner === undefined || session.identity.owner === principal;
}
