import { isDeepStrictEqual } from 'node:util';
import { SandpitError, toErrorBody } from '../../shared/api/errors';
import type { Artifact } from '../../shared/domain/artifact';
import type { ExecutionResult } from '../../shared/domain/execution';
import { resolveLimits } from '../../shared/domain/limits';
import type { Limits } from '../../shared/domain/limits';
import type { ChannelKind, Language, SessionInfo, SessionState } from '../../shared/domain/session';
import type { EventBus } from '../api/event-bus';
import type { SandpitConfig } from '../config';
import type { DaemonEvents } from '../docker/daemon-events';
import type { DockerClient } from '../docker/docker-client';
import type { EngineMonitor } from '../docker/engine-monitor';
import type { InstanceIdentity } from '../docker/labels';
import type { ArtifactStore } from '../files/artifact-store';
import type { Logger } from '../log';
import { newId } from '../util/ids';
import { Semaphore } from '../util/semaphore';
import { SerialQueue } from '../util/serial-queue';
import { captureArtifacts } from './capture-artifacts';
import { ContainerSession } from './container-session';
import { resolveChannel } from './session-types';
import type { CreateSessionInput, ManagedSession, SessionTemplate } from './session-types';
import { WarmPool } from './warm-pool';

export interface SessionManagerDeps {
  config: SandpitConfig;
  docker: DockerClient;
  events: DaemonEvents;
  engine: EngineMonitor;
  bus: EventBus;
  artifacts: ArtifactStore;
  identity: InstanceIdentity;
  instanceDir: string;
  log: Logger;
}

/**
 * Sessions: create (from a warm pool when one fits), list, get, stop, idle TTL, max sessions, a FIFO
 * of runs per session and a global cap on runs at once. Emits live events on the bus.
 */
export class SessionManager {
  private readonly sessions = new Map<string, ManagedSession>();
  private readonly pools = new Map<string, WarmPool>();
  private readonly slots: Semaphore;
  private readonly channel: ChannelKind;
  private readonly log: Logger;
  private sweepTimer: NodeJS.Timeout | undefined;
  private disposed = false;
  /** Sessions whose containers are starting: they count against maxSessions like the ones that exist. */
  private creating = 0;
  /** Ready containers per pool and the limits of new sessions: settings that apply at once (setPoolSize, setDefaultLimits). */
  private poolSize: number;
  private defaultLimits: Limits;

  constructor(private readonly deps: SessionManagerDeps) {
    this.slots = new Semaphore(deps.config.maxConcurrentRuns);
    this.channel = resolveChannel(deps.config.channel, deps.docker.endpoint);
    this.log = deps.log.child({ component: 'sessions' });
    this.poolSize = deps.config.poolSize;
    this.defaultLimits = deps.config.defaultLimits;
    this.sweepTimer = setInterval(() => void this.sweepIdle(), Math.min(30_000, Math.max(1_000, deps.config.idleTtlMs / 4)));
    this.sweepTimer.unref();
  }

  get logger(): Logger {
    return this.log;
  }

  get channelKind(): ChannelKind {
    return this.channel;
  }

  /** Starts warm pools for the default template of each language that has an image. */
  warmUp(languages: Language[] = ['python']): void {
    if (this.poolSize <= 0) return;
    for (const language of languages) {
      const image = this.deps.config.images[language];
      if (image) void this.poolFor({ language, image, limits: this.defaultLimits }).refill();
    }
  }

  async create(input: CreateSessionInput = {}): Promise<SessionInfo> {
    this.assertOpen();
    this.deps.engine.assertUp();
    // Counted before the first await, so creates that run at once cannot all pass the check.
    if (this.sessions.size + this.creating >= this.deps.config.maxSessions) {
      const starting = this.creating > 0 ? ` (${this.creating} of them starting)` : '';
      throw new SandpitError('LIMIT_EXCEEDED', `There are already ${this.sessions.size + this.creating} sessions${starting}, the maximum. Stop one first.`);
    }
    this.creating += 1;
    try {
      return await this.openSession(input);
    } finally {
      this.creating -= 1;
    }
  }

  private async openSession(input: CreateSessionInput): Promise<SessionInfo> {
    const language = input.language ?? 'python';
    const image = input.image ?? this.deps.config.images[language];
    if (!image) throw new SandpitError('IMAGE_MISSING', `No ${language} sandbox image is configured. Build it with "npm run build:images".`);
    const limits = resolveLimits({ ...input.baseLimits, ...input.limits }, this.defaultLimits);
    const template: SessionTemplate = { language, image, limits, network: input.network, env: input.containerEnv };
    // Sessions with the caller's own limits start cold; every template of the defaults has a warm pool.
    const poolable = input.limits === undefined && this.poolSize > 0;
    let runtime = poolable ? this.poolFor(template).claim() : undefined;
    const fromPool = runtime !== undefined;
    if (!runtime) {
      runtime = this.makeRuntime(newId('ses'), template, false);
      await runtime.start();
    }
    if (this.disposed) {
      // Disposed while the container started: nobody would ever stop this one.
      await runtime.remove().catch(() => undefined);
      this.assertOpen();
    }
    const now = new Date();
    const session: ManagedSession = {
      runtime,
      language,
      image,
      limits,
      state: 'ready',
      createdAt: now,
      lastUsedAt: now,
      runs: 0,
      fromPool,
      client: input.client,
      environment: input.environment,
      networkPolicy: input.networkPolicy ?? 'none',
      owner: input.owner,
      idleTtlMs: input.idleTtlMs ?? this.deps.config.idleTtlMs,
      packages: [],
      queue: new SerialQueue(),
    };
    runtime.onRecovered = (error) => this.setState(session, error ? 'failed' : 'ready');
    this.sessions.set(runtime.id, session);
    this.log.info('session created', { sessionId: runtime.id, fromPool, containerId: runtime.containerId });
    this.deps.bus.emit('session.updated', this.info(session));
    return this.info(session);
  }

  /** New pool size: every pool shrinks or grows now; with none yet, the default templates warm up. */
  setPoolSize(size: number): void {
    this.poolSize = size;
    for (const pool of this.pools.values()) pool.resize(size);
    if (size > 0 && this.deps.engine.current.state === 'up') this.warmUp(this.imageLanguages());
  }

  /**
   * New default limits for sessions created from now on. Ready containers were made with the old
   * ones, so every pool is emptied and the default templates warm up again.
   */
  setDefaultLimits(limits: Limits): void {
    if (isDeepStrictEqual(limits, this.defaultLimits)) return;
    this.defaultLimits = limits;
    const stale = [...this.pools.values()];
    this.pools.clear();
    void Promise.all(stale.map((pool) => pool.dispose()));
    if (this.poolSize > 0 && this.deps.engine.current.state === 'up') this.warmUp(this.imageLanguages());
  }

  /** The warm pools: how many ready containers each holds of how many, and whether it is filling. */
  poolStatus(): Array<{ key: string; ready: number; size: number; filling: boolean }> {
    return [...this.pools.values()].map((p) => ({ key: p.key, ready: p.available, size: p.targetSize, filling: p.filling }));
  }

  list(): SessionInfo[] {
    return [...this.sessions.values()].map((s) => this.info(s));
  }

  get(sessionId: string): SessionInfo {
    return this.info(this.require(sessionId));
  }

  /**
   * Refuses a session that belongs to someone else (as if it did not exist, so ids leak nothing).
   * `principal` undefined is the panel, which sees every session.
   */
  access(sessionId: string, principal: string | undefined): SessionInfo {
    const session = this.require(sessionId);
    if (principal !== undefined && session.owner !== principal) {
      throw new SandpitError('SESSION_NOT_FOUND', `There is no session "${sessionId}" for this client. List sessions to see yours.`);
    }
    return this.info(session);
  }

  /** Sessions a principal may see (all of them for the panel). */
  listFor(principal: string | undefined): SessionInfo[] {
    return [...this.sessions.values()].filter((s) => principal === undefined || s.owner === principal).map((s) => this.info(s));
  }

  /** Stops every session a principal owns (e.g. when its MCP session ends). */
  async stopOwnedBy(principal: string): Promise<number> {
    const ids = [...this.sessions.entries()].filter(([, s]) => s.owner === principal).map(([id]) => id);
    await Promise.all(ids.map((id) => this.stop(id).catch(() => undefined)));
    return ids.length;
  }

  /** Runs work on the session's FIFO (after queued runs), e.g. installs or commands. */
  async enqueue<T>(sessionId: string, work: (runtime: ContainerSession) => Promise<T>): Promise<T> {
    const session = this.require(sessionId);
    return session.queue.run(async () => {
      if (!this.sessions.has(sessionId)) throw new SandpitError('SESSION_NOT_FOUND', `Session ${sessionId} was stopped.`);
      const release = await this.slots.acquire(this.deps.config.queueTimeoutMs, 'The command');
      session.lastUsedAt = new Date();
      this.setState(session, 'busy');
      try {
        return await work(session.runtime);
      } finally {
        release();
        session.lastUsedAt = new Date();
        if (this.sessions.has(sessionId)) this.setState(session, session.runtime.connected ? 'ready' : 'failed');
      }
    });
  }

  /** Remembers packages installed at run time (shown in the panel; "save as environment" uses them). */
  recordPackages(sessionId: string, packages: string[]): void {
    const session = this.require(sessionId);
    for (const p of packages) if (!session.packages.includes(p)) session.packages.push(p);
    this.deps.bus.emit('session.updated', this.info(session));
  }

  /** The container behind a session (for files and tools that exec). */
  runtimeOf(sessionId: string): ContainerSession {
    return this.require(sessionId).runtime;
  }

  touch(sessionId: string): void {
    this.require(sessionId).lastUsedAt = new Date();
  }

  async stop(sessionId: string): Promise<void> {
    const session = this.require(sessionId);
    this.sessions.delete(sessionId);
    this.setState(session, 'stopping');
    try {
      await session.runtime.remove();
    } finally {
      session.state = 'stopped';
      this.deps.bus.emit('session.removed', { sessionId });
      this.log.info('session stopped', { sessionId });
    }
  }

  interrupt(sessionId: string): boolean {
    return this.require(sessionId).runtime.interrupt();
  }

  async restart(sessionId: string): Promise<SessionInfo> {
    const session = this.require(sessionId);
    await session.queue.run(async () => {
      this.setState(session, 'restarting');
      try {
        await session.runtime.restart();
      } catch (error) {
        this.setState(session, 'failed');
        throw error;
      }
      this.setState(session, 'ready');
    });
    return this.info(session);
  }

  /** Queues a run on the session (FIFO), waits for a global slot, runs it and captures artifacts. */
  async execute(sessionId: string, code: string, options: { timeoutMs?: number; executionId?: string } = {}): Promise<ExecutionResult> {
    const session = this.require(sessionId);
    const executionId = options.executionId ?? newId('run', 8);
    const timeoutMs = options.timeoutMs ?? session.limits.timeoutMs;
    return session.queue.run(async () => {
      if (!this.sessions.has(sessionId)) throw new SandpitError('SESSION_NOT_FOUND', `Session ${sessionId} was stopped before the run started.`);
      const release = await this.slots.acquire(this.deps.config.queueTimeoutMs, 'The run');
      const { bus } = this.deps;
      const startedAt = Date.now();
      try {
        session.lastUsedAt = new Date();
        session.runs += 1;
        this.setState(session, 'busy');
        bus.emit('execution.started', { sessionId, executionId, code, startedAt: new Date(startedAt).toISOString() });
        const outcome = await session.runtime.run({
          executionId,
          code,
          timeoutMs,
          outputLimit: session.limits.outputBytes,
          onOutput: (stream, text) => bus.emit('execution.output', { sessionId, executionId, stream, text }),
          onDisplay: (display) => bus.emit('execution.display', { sessionId, executionId, display }),
        });
        const artifacts = await this.capture(session, executionId, outcome.done?.files ?? [], outcome.displays);
        const result: ExecutionResult = {
          executionId,
          sessionId,
          status: outcome.status,
          stdout: outcome.stdout,
          stderr: outcome.stderr,
          result: outcome.result,
          error: outcome.error,
          displays: outcome.displays,
          truncated: outcome.truncated,
          durationMs: outcome.durationMs,
          exitCode: outcome.done?.exitCode,
          files: outcome.done?.files ?? [],
          artifacts,
          stateLost: outcome.stateLost,
          message: outcome.message,
        };
        bus.emit('execution.done', { sessionId, executionId, status: result.status, durationMs: result.durationMs });
        return result;
      } catch (error) {
        const body = toErrorBody(error);
        bus.emit('execution.done', { sessionId, executionId, status: 'failed', durationMs: Date.now() - startedAt, errorCode: body.code });
        if (body.code === 'DOCKER_UNAVAILABLE') this.deps.engine.markDown(body.message);
        throw error;
      } finally {
        release();
        session.lastUsedAt = new Date();
        if (this.sessions.has(sessionId)) this.setState(session, session.runtime.connected ? 'ready' : 'failed');
      }
    });
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    clearInterval(this.sweepTimer);
    await Promise.all([...this.pools.values()].map((p) => p.dispose()));
    await Promise.all([...this.sessions.keys()].map((id) => this.stop(id).catch(() => undefined)));
  }

  /** Pools may try again after the engine came back. */
  engineCameBack(): void {
    for (const pool of this.pools.values()) {
      pool.resetFailures();
      void pool.refill();
    }
    // Sessions whose containers stopped with the engine start the SAME container again (no duplicates).
    for (const session of this.sessions.values()) {
      if (session.runtime.connected) continue;
      this.setState(session, 'restarting');
      session.queue
        .run(() => session.runtime.restart())
        .then(
          () => this.setState(session, 'ready'),
          (error: unknown) => {
            this.log.warn('could not restart a session after the engine came back', { sessionId: session.runtime.id, error: toErrorBody(error).message });
            this.setState(session, 'failed');
          },
        );
    }
  }

  private async capture(session: ManagedSession, executionId: string, files: Array<{ path: string; size: number }>, displays: ExecutionResult['displays']): Promise<Artifact[]> {
    try {
      return await captureArtifacts({
        docker: this.deps.docker,
        store: this.deps.artifacts,
        containerId: session.runtime.containerId,
        sessionId: session.runtime.id,
        executionId,
        files,
        displays,
        maxBytes: this.deps.config.maxArtifactBytes,
        maxCount: this.deps.config.maxArtifactsPerRun,
        log: this.log,
      });
    } catch (error) {
      this.log.warn('could not capture artifacts', { sessionId: session.runtime.id, error: toErrorBody(error).message });
      return [];
    }
  }

  private poolFor(template: SessionTemplate): WarmPool {
    const env = typeof template.env === 'function' ? template.env('') : (template.env ?? {});
    const key = JSON.stringify([template.language, template.image, template.limits, template.network ?? 'none', env, this.channel]);
    let pool = this.pools.get(key);
    if (!pool) {
      pool = new WarmPool(key, this.poolSize, () => this.makeRuntime(newId('ses'), template, true), this.log);
      this.pools.set(key, pool);
    }
    return pool;
  }

  private makeRuntime(id: string, template: SessionTemplate, fromPool: boolean): ContainerSession {
    const { config } = this.deps;
    return new ContainerSession({
      id,
      language: template.language,
      image: template.image,
      limits: template.limits,
      network: template.network,
      env: typeof template.env === 'function' ? template.env(id) : template.env,
      channel: this.channel,
      identity: this.deps.identity,
      docker: this.deps.docker,
      events: this.deps.events,
      log: this.deps.log,
      instanceDir: this.deps.instanceDir,
      fromPool,
      startTimeoutMs: config.startTimeoutMs,
      graceMs: config.graceMs,
      runtime: config.runtime,
    });
  }

  private async sweepIdle(): Promise<void> {
    if (this.disposed) return;
    for (const [id, s] of this.sessions) {
      if (s.state !== 'busy' && s.queue.length === 0 && s.lastUsedAt.getTime() < Date.now() - s.idleTtlMs) {
        this.log.info('stopping idle session', { sessionId: id });
        await this.stop(id).catch((error: unknown) => this.log.warn('could not stop idle session', { sessionId: id, error: toErrorBody(error).message }));
      }
    }
  }

  private imageLanguages(): Language[] {
    return (Object.keys(this.deps.config.images) as Language[]).filter((language) => this.deps.config.images[language]);
  }

  private assertOpen(): void {
    if (this.disposed) throw new SandpitError('INTERNAL', 'Sandpit is shutting down: no new sessions are started.');
  }

  private require(sessionId: string): ManagedSession {
    const session = this.sessions.get(sessionId);
    if (!session) throw new SandpitError('SESSION_NOT_FOUND', `There is no session "${sessionId}". List sessions to see the ones that exist.`);
    return session;
  }

  private setState(session: ManagedSession, state: SessionState): void {
    if (session.state === state) return;
    session.state = state;
    this.deps.bus.emit('session.updated', this.info(session));
  }

  private info(s: ManagedSession): SessionInfo {
    return {
      id: s.runtime.id,
      language: s.language,
      image: s.image,
      state: s.state,
      channel: this.channel,
      limits: s.limits,
      containerId: s.runtime.containerId,
      createdAt: s.createdAt.toISOString(),
      lastUsedAt: s.lastUsedAt.toISOString(),
      runs: s.runs,
      fromPool: s.fromPool,
      client: s.client,
      environment: s.environment,
      packages: [...s.packages],
      network: s.networkPolicy,
      idleTimeoutMs: s.idleTtlMs,
    };
  }
}
