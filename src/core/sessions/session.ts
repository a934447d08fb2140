import { SandpitError, toErrorBody } from '../../shared/api/errors';
import type { FileEntry } from '../../shared/domain/artifact';
import type { ExecutionResult, StopCause, StreamName } from '../../shared/domain/execution';
import type { CommandResult, PackageOutcome } from '../../shared/domain/packages';
import { languageLabel, languageOfPath, withArticle } from '../../shared/domain/languages';
import type { SessionInfo, SessionState } from '../../shared/domain/session';
import type { SecretUse } from '../../shared/domain/secret';
import type { SharedFolder } from '../../shared/domain/shared-folder';
import { fromWorkspacePath } from '../files/safe-path';
import type { MountedFolder } from '../folders/share-folders';
import type { Logger } from '../log';
import type { PackageCheck } from '../installers/helper-install';
import { installerFor } from '../installers/installers';
import type { PackageSpec } from '../installers/package-specs';
import type { SandboxStats } from '../sandbox/sandbox-backend';
import { newId } from '../util/ids';
import { SerialQueue } from '../util/serial-queue';
import { resumeNotice } from './resume-notice';
import type { PauseReason } from './resume-notice';
import { RunHistory } from './run-history';
import type { RecordedRuns } from './run-history';
import type { SandboxDriver } from './sandbox-driver';
import { runShellCommand, stopShellCommands } from './session-commands';
import { captureSessionContents, restoreSessionContents } from './session-contents';
import type { RestoreFile } from './session-contents';
import { sessionInfoOf } from './session-info';
import { runSessionCode } from './session-run';
import type { SessionRunContext } from './session-run';
import { assertTransition } from './session-state';
import { MAX_RUN_FILE_BYTES, sandboxFolders } from './session-types';
import type { ExecuteOptions, SessionContents, SessionIdentity, SessionRestore, SessionServices } from './session-types';
import { listWorkspace, readWorkspaceFile, workspaceUsage, writeWorkspaceFile } from './workspace-files';
import type { WorkspaceFileSink, WorkspaceWalkCaps } from './workspace-tar';

/** A job on the session's queue: a run-like one makes the session busy, a quiet one (a read) does not. */
type JobKind = 'busy' | 'quiet';

/**
 * One sandbox as the API sees it: every operation on it (runs, commands, files, packages, restarts)
 * goes through its FIFO queue and a global run slot, and every state change through the transition
 * table. The only way anything above src/core/sessions/ reaches a sandbox.
 */
export class Session {
  readonly id: string;
  private stateValue: SessionState;
  readonly createdAt: Date;
  private lastUsed = new Date();
  private runs = 0;
  private readonly packages: string[];
  private keptValue: boolean;
  /**
   * Said with the next run's result, once: set when the session is paused (its variables are gone from then
   * on), so it is said even when the resume failed at first and a restart brought the session back.
   */
  private pendingNotice: string | undefined;
  /** Successful runs since the interpreter started (a restart or a lost state clears them). */
  private readonly history: RunHistory;
  private readonly queue = new SerialQueue();
  private readonly log: Logger;
  private folderList: MountedFolder[];
  /** The secrets its requests may carry (issue 18): its identity's, less any deleted since. */
  private secretList: SecretUse[];
  /** What a run needs of this session (made once: the run's hot path builds nothing). */
  private readonly runContext: SessionRunContext;

  constructor(
    readonly runtime: SandboxDriver,
    readonly identity: SessionIdentity,
    private readonly services: SessionServices,
    initial: SessionState,
    restore?: SessionRestore,
    folders: readonly MountedFolder[] = [],
  ) {
    this.id = runtime.id;
    this.folderList = [...folders];
    this.secretList = [...(identity.secrets ?? [])];
    this.stateValue = initial;
    this.createdAt = restore?.createdAt ?? new Date();
    this.packages = [...(restore?.packages ?? [])];
    this.keptValue = restore?.kept ?? false;
    this.runs = restore?.runs ?? 0;
    this.history = new RunHistory(restore?.history);
    if (restore?.pausedBy) this.pendingNotice = resumeNotice(restore.pausedBy, identity.idleTtlMs);
    this.log = services.log.child({ sessionId: this.id });
    this.runContext = {
      sessionId: this.id,
      runtime,
      identity,
      services,
      history: this.history,
      log: this.log,
      takeNotice: () => {
        const notice = this.pendingNotice;
        this.pendingNotice = undefined;
        return notice;
      },
    };
    runtime.onRecovering = () => {
      this.history.forget();
      this.setState('restarting');
    };
    runtime.onRecovered = (error) => (error ? this.fail(error) : this.setState('ready'));
  }

  /** How many runs it has had (a kept session's count goes on after a resume). */
  get runCount(): number {
    return this.runs;
  }

  get state(): SessionState {
    return this.stateValue;
  }

  get lastUsedAt(): Date {
    return this.lastUsed;
  }

  /** Kept across a restart of Sandpit (its container stops when Sandpit quits, its storage stays). */
  get kept(): boolean {
    return this.keptValue;
  }

  setKept(keep: boolean): void {
    if (this.keptValue === keep) return;
    this.keptValue = keep;
    this.services.bus.emit('session.updated', this.info());
  }

  /** Packages installed at run time (what a kept session's record carries). */
  get installedPackages(): string[] {
    return [...this.packages];
  }

  /** Jobs waiting or running on the queue. */
  get pending(): number {
    return this.queue.length;
  }

  /** Nothing runs or waits on it, and it is not starting, stopping or restarting. */
  get idle(): boolean {
    return this.queue.length === 0 && (this.stateValue === 'ready' || this.stateValue === 'failed' || this.stateValue === 'paused');
  }

  info(): SessionInfo {
    const { runtime } = this;
    const now = { state: this.stateValue, channel: runtime.channelKind, containerId: runtime.containerId, createdAt: this.createdAt, lastUsedAt: this.lastUsed };
    return sessionInfoOf(this.id, this.identity, { ...now, runs: this.runs, packages: this.packages, kept: this.keptValue, folders: this.folders, secrets: this.secretList });
  }

  /** The secrets the person ticked for this session itself (a kept session's record carries them), by name. */
  get ownSecrets(): string[] {
    return this.secretList.filter((s) => s.forSession).map((s) => s.name);
  }

  /** A secret was deleted: it is no longer listed (the proxy stopped putting it in already). True if it was listed. */
  forgetSecret(name: string): boolean {
    if (!this.secretList.some((s) => s.name === name)) return false;
    this.secretList = this.secretList.filter((s) => s.name !== name);
    this.services.bus.emit('session.updated', this.info());
    return true;
  }

  /** The folders of the person's computer this session has, and how. */
  get folders(): SharedFolder[] {
    return this.folderList.map(({ name, hostPath, mountPath, mode }) => ({ name, hostPath, mountPath, mode }));
  }

  /** The folders as they are mounted (with the groups their sandbox user joins). */
  get mountedFolders(): readonly MountedFolder[] {
    return this.folderList;
  }

  /**
   * Gives the session these shared folders, after what is queued: its sandbox starts again in a new
   * container (a bind mount is fixed when a container is made), so variables are lost while /workspace and
   * the installed packages stay. When the new container cannot start (e.g. Docker Desktop does not share
   * the folder), the session goes back to its previous folders and the error says why.
   */
  async replaceFolders(folders: readonly MountedFolder[]): Promise<SessionInfo> {
    await this.queue.run(async () => {
      if (this.stateValue === 'stopping' || this.stateValue === 'stopped') throw this.stoppedError();
      if (this.stateValue === 'paused') await this.resumeNow();
      // A new container: the variables go, the recorded runs stay (a fork with replay rebuilds them).
      const previous = this.folderList;
      this.setState('restarting');
      try {
        await this.runtime.replaceFolders(sandboxFolders(folders));
        this.folderList = [...folders];
      } catch (error) {
        this.log.warn('could not start the sandbox with the new shared folders; going back to the previous ones', { error: toErrorBody(error).message });
        try {
          this.setState('restarting');
          await this.runtime.replaceFolders(sandboxFolders(previous));
          this.setState('ready');
        } catch (again) {
          this.log.error('could not start the sandbox again with its previous shared folders', { error: toErrorBody(again).message });
          this.fail(again);
        }
        throw error;
      }
      this.setState('ready');
      // The state may have been ready already (the restart's own recovery said so): the folders changed anyway.
      this.services.bus.emit('session.updated', this.info());
    });
    return this.info();
  }

  /** The first job of a cold session: its sandbox starts, and everything queued behind waits for it. */
  boot(): Promise<void> {
    return this.queue.run(async () => {
      try {
        await this.runtime.start();
      } catch (error) {
        this.fail(error);
        throw error;
      }
      // Idle from now, not from when it was asked for: a slow start is not idleness (a session being kept
      // could otherwise be stopped for idleness before its record was written).
      this.lastUsed = new Date();
      this.setState('ready');
    });
  }

  async execute(code: string, options: ExecuteOptions = {}): Promise<ExecutionResult> {
    const executionId = options.executionId ?? newId('run', 8);
    return this.job('busy', 'The run', () => this.runCode(code, executionId, options.timeoutMs ?? this.identity.limits.timeoutMs), options.onStart);
  }

  /**
   * Runs a workspace file in the session's state (like IPython's `%run -i`): what it defines stays.
   * `approvedContent` is the text the person approved, which runs instead of the file as it is by now.
   */
  async runFile(path: string, options: ExecuteOptions & { approvedContent?: string } = {}): Promise<ExecutionResult> {
    const relative = fromWorkspacePath(path);
    const language = languageOfPath(relative);
    if (language !== this.identity.language) {
      throw new SandpitError(
        'INVALID_INPUT',
        `"${relative}" cannot be run in ${withArticle(languageLabel(this.identity.language))} session: run it in ${language ? withArticle(languageLabel(language)) : 'a matching'} session, or use run_command for anything else.`,
      );
    }
    const executionId = options.executionId ?? newId('run', 8);
    // Read and run in one job: nothing queued in between can change what runs.
    return this.job('busy', 'The run', async () => {
      const code = options.approvedContent ?? (await readWorkspaceFile(this.runtime, relative, MAX_RUN_FILE_BYTES)).content.toString('utf8');
      return this.runCode(code, executionId, options.timeoutMs ?? this.identity.limits.timeoutMs);
    }, options.onStart);
  }

  /** A shell command (`sh -c`) in /workspace, killed inside the sandbox at its time limit; `onOutput` hears its output as it comes. */
  async runCommand(command: string, timeoutMs?: number, onStart?: () => void, onOutput?: (stream: StreamName, text: string) => void): Promise<CommandResult> {
    const limitMs = timeoutMs ?? this.identity.limits.timeoutMs;
    return this.job('busy', 'The command', () => runShellCommand(this.runtime, this.log, this.id, command, limitMs, this.identity.limits.outputBytes, onOutput), onStart);
  }

  /**
   * Short work that needs the sandbox up (a paused session resumes first; a stopped one refuses), after what
   * is queued: starting a long-running process (session-processes.ts), which then runs beside the queue.
   */
  withSandbox<T>(what: string, work: () => Promise<T>): Promise<T> {
    return this.job('quiet', what, work);
  }

  async readFile(path: string, maxBytes?: number): Promise<{ path: string; content: Buffer }> {
    return this.job('quiet', 'Reading a file', () => readWorkspaceFile(this.runtime, path, maxBytes));
  }

  /** Creates or replaces a file, or appends to it. */
  async writeFile(path: string, content: Buffer, append = false): Promise<{ path: string; size: number }> {
    return this.job('busy', 'Writing a file', () => writeWorkspaceFile(this.runtime, path, content, append));
  }

  async listFiles(path: string): Promise<FileEntry[]> {
    return this.job('quiet', 'Listing files', () => listWorkspace(this.runtime, path));
  }

  /** Installs packages (validated by the caller) through a helper; the session itself stays offline. */
  async installPackages(specs: PackageSpec[]): Promise<PackageOutcome[]> {
    const installer = installerFor(this.identity.language);
    const outcomes = await this.job('busy', 'The install', async () => {
      const results = await installer.install(this.runtime.sandbox, specs, await this.services.installSettings(this.id), this.log);
      const versions = await installer.check(this.runtime.sandbox, specs);
      return results.map((r, i) => (r.ok && versions[i]?.version ? { ...r, version: versions[i].version } : r));
    });
    this.recordPackages(outcomes.filter((o) => o.ok).map((o) => o.package));
    return outcomes;
  }

  async checkPackages(specs: PackageSpec[]): Promise<PackageCheck[]> {
    return this.job('quiet', 'The package check', () => installerFor(this.identity.language).check(this.runtime.sandbox, specs));
  }

  /** CPU, memory and workspace disk use now (not queued: a measure must not wait behind a long run). */
  async stats(): Promise<SandboxStats> {
    // A paused sandbox uses nothing, and a measure never resumes it.
    if (this.stateValue === 'paused') return { cpu: 0, memoryBytes: 0, memoryLimitBytes: this.identity.limits.memoryMb * 1024 * 1024, pids: 0 };
    const [engine, disk] = await Promise.all([this.runtime.sandbox.stats(), workspaceUsage(this.runtime).catch(() => undefined)]);
    return disk ? { ...engine, workspaceBytes: disk.usedBytes, workspaceLimitBytes: disk.totalBytes } : engine;
  }

  /**
   * Stops a command under way (not queued: it must reach the command in progress). Each command runs under
   * `timeout`, which leads its own process group: a TERM to it goes to the whole group, so the command and what it
   * started end, and the command's own end then stops whatever is left. For code, use interrupt.
   */
  async stopCommand(): Promise<void> {
    await stopShellCommands(this.runtime);
  }

  /** Sends SIGINT to the running code (not queued: it must reach a run in progress). */
  interrupt(): boolean {
    return this.runtime.interrupt();
  }

  /** Kills and starts the sandbox again, after what is queued. Variables are lost. */
  async restart(): Promise<SessionInfo> {
    await this.queue.run(async () => {
      if (this.stateValue === 'stopping' || this.stateValue === 'stopped') throw this.stoppedError();
      this.setState('restarting');
      this.history.forget();
      try {
        await this.runtime.restart();
      } catch (error) {
        this.fail(error);
        throw error;
      }
      this.setState('ready');
    });
    return this.info();
  }

  /**
   * Stops the container after what is queued, keeping its workspace and packages (memory is not kept: CRIU
   * does not work here). Only a ready (or failed) session with nothing waiting is paused; resolves whether it was.
   */
  pause(reason: PauseReason): Promise<boolean> {
    return this.queue.run(async () => {
      if ((this.stateValue !== 'ready' && this.stateValue !== 'failed') || this.queue.length > 1) return false;
      await this.runtime.pause();
      this.markPaused(reason);
      return true;
    });
  }

  /**
   * Sandpit quits and this session is kept: its container stops now, without waiting for the queue (a run
   * in flight ends as the whole core does); its storage stays for the next core.
   */
  async pauseForQuit(): Promise<void> {
    if (this.stateValue === 'paused' || this.stateValue === 'stopping' || this.stateValue === 'stopped') return;
    await this.runtime.pause();
    this.markPaused('quit');
  }

  /** Starts the sandbox again after the engine came back (the same container: no duplicates). */
  recoverAfterEngine(): void {
    if (this.runtime.connected || this.stateValue === 'starting' || this.stateValue === 'paused' || this.stateValue === 'stopping' || this.stateValue === 'stopped') return;
    this.setState('restarting');
    this.history.forget();
    this.queue
      .run(() => this.runtime.restart())
      .then(
        () => this.setState('ready'),
        (error: unknown) => {
          this.log.warn('could not restart a session after the engine came back', { error: toErrorBody(error).message });
          this.fail(error);
        },
      );
  }

  /** Removes the sandbox; a run under way ends `killed` (saying who stopped it), queued jobs fail with SESSION_NOT_FOUND. */
  async stop(cause?: StopCause): Promise<void> {
    if (this.stateValue === 'stopping' || this.stateValue === 'stopped') return;
    this.setState('stopping');
    try {
      await this.runtime.remove(cause);
    } finally {
      this.setState('stopped');
    }
  }

  /**
   * Everything a snapshot takes, in one job (nothing queued runs in between): each regular file of the
   * workspace to `sink` (one tar stream read as the sandbox user, links never followed), the package store's archive, the runs, then `alsoInJob`.
   */
  async captureContents(sink: WorkspaceFileSink, caps: WorkspaceWalkCaps & { maxPackageBytes: number }, alsoInJob?: () => Promise<void>): Promise<SessionContents> {
    return this.job('quiet', 'The snapshot', () => captureSessionContents(this.runtime.sandbox, this.runtime.workspaceExec(), this.folderList, this.packages, () => this.history.recorded, sink, caps, alsoInJob));
  }

  /** Puts a snapshot's files (one tar stream; they may come as a snapshot takes them) and packages into this session, in one job. */
  async restoreContents(files: readonly RestoreFile[] | AsyncIterable<RestoreFile>, packages: { tar: Buffer; names: string[] } | undefined, caps: { maxFileBytes: number; maxBytes: number }): Promise<void> {
    await this.job('busy', 'The restore', () => restoreSessionContents(this.runtime.sandbox, this.runtime.workspaceExec(), files, packages?.tar, caps));
    if (packages) this.recordPackages(packages.names);
  }

  /** Notes a use that did not go through the queue (e.g. the panel opened the session). */
  touch(): void {
    this.lastUsed = new Date();
  }

  /** The successful runs recorded since the session's last restart (what a fork's replay runs again). */
  get recordedRuns(): RecordedRuns {
    return this.history.recorded;
  }

  private recordPackages(packages: string[]): void {
    let changed = false;
    for (const p of packages) {
      if (!this.packages.includes(p)) {
        this.packages.push(p);
        changed = true;
      }
    }
    if (changed) this.services.bus.emit('session.updated', this.info());
  }

  private markPaused(reason: PauseReason): void {
    this.pendingNotice = resumeNotice(reason, this.identity.idleTtlMs);
    // The variables end with the container; the recorded runs stay, so a fork with replay can rebuild them.
    // From ready or failed (the table's way in); a session caught mid-run at quit keeps its state, the record is what stays.
    if (this.stateValue === 'ready' || this.stateValue === 'failed') this.setState('paused');
    this.services.bus.emit('session.paused', { sessionId: this.id, reason });
  }

  /** Starts a paused session's sandbox again (inside a queued job, before its work). */
  private async resumeNow(): Promise<void> {
    const started = Date.now();
    this.setState('restarting');
    try {
      await this.runtime.resume();
    } catch (error) {
      this.fail(error);
      // The engine is gone: the monitor reconnects, and recoverAfterEngine starts this session then.
      const body = toErrorBody(error);
      if (body.code === 'DOCKER_UNAVAILABLE') this.services.engine.markDown(body.message);
      throw error;
    }
    this.setState('ready');
    const durationMs = Date.now() - started;
    this.log.info('resumed a paused session', { durationMs });
    this.services.bus.emit('session.resumed', { sessionId: this.id, durationMs });
  }

  /** Why its sandbox could not be started again, as the person is told on every later call. */
  private failure: string | undefined;

  private fail(error: unknown): void {
    this.failure = toErrorBody(error).message;
    this.setState('failed');
  }

  private stoppedError(): SandpitError {
    return new SandpitError('SESSION_NOT_FOUND', `Session ${this.id} was stopped.`);
  }

  /** One job on the queue: after what is queued, with a global slot, in a state that can do it. */
  private job<T>(kind: JobKind, what: string, work: () => Promise<T>, onStart?: () => void): Promise<T> {
    return this.queue.run(async () => {
      if (this.stateValue === 'stopping' || this.stateValue === 'stopped') throw this.stoppedError();
      if (this.stateValue === 'paused') await this.resumeNow();
      if (this.stateValue === 'failed') {
        throw new SandpitError('CONTAINER_DIED', `The sandbox of session ${this.id} stopped and could not be started again${this.failure ? ` (${this.failure.replace(/\.$/, '')})` : ''}. Restart the session, or start a new one.`);
      }
      const release = await this.services.slots.acquire(this.services.queueTimeoutMs, what);
      this.lastUsed = new Date();
      if (kind === 'busy' && this.stateValue === 'ready') this.setState('busy');
      onStart?.();
      try {
        return await work();
      } finally {
        release();
        this.lastUsed = new Date();
        if (this.stateValue === 'busy' || (this.stateValue === 'ready' && !this.runtime.connected)) {
          if (this.runtime.connected) this.setState('ready');
          else this.fail(new Error(this.runtime.startFailure ?? 'its sandbox is not connected'));
        }
      }
    });
  }

  private runCode(code: string, executionId: string, timeoutMs: number): Promise<ExecutionResult> {
    this.runs += 1;
    return runSessionCode(this.runContext, code, executionId, timeoutMs);
  }

  /** Every change goes through the table; one it does not allow is refused and logged (a bug, never the user's). */
  private setState(state: SessionState): void {
    if (state !== 'failed') this.failure = undefined;
    if (this.stateValue === state) return;
    try {
      assertTransition(this.id, this.stateValue, state);
    } catch (error) {
      this.log.error('refused a session state change', { from: this.stateValue, to: state, error: toErrorBody(error).message });
      return;
    }
    this.stateValue = state;
    this.services.bus.emit('session.updated', this.info());
  }
}
