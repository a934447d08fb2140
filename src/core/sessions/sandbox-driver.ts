import { SandpitError, toErrorBody } from '../../shared/api/errors';
import type { StopCause } from '../../shared/domain/execution';
import { stoppedRunMessage, timeLimitWords } from './run-outcome';
import type { RunOutcome, RunRequest, RunStatus } from './run-outcome';
import type { Limits } from '../../shared/domain/limits';
import type { ChannelKind } from '../../shared/domain/session';
import type { Logger } from '../log';
import type { AgentChannel } from '../sandbox/agent-channel';
import { agentSource } from './source-dialect';
import { wrongLanguage } from './agent-language';
import { agentPipe } from './agent-pipe';
import type { WorkspaceExec } from './workspace-tar';
import { ExecutionCollector } from './execution-collector';
import { AgentRequests } from './agent-requests';
import type { ReplyCollector } from './agent-requests';
import { isRequestReply } from '../sandbox/protocol';
import type { AgentMessage, HostMessage } from '../sandbox/protocol';
import type { ReopenOptions, Sandbox, SandboxBackend, SandboxFolder, SandboxRecord, SandboxSpec } from '../sandbox/sandbox-backend';
import { diagnoseDeath, engineAnswers } from './diagnose-death';
/**
 * How long the watchdog waits for the channel to end after it killed the container. A kill that fails
 * or hangs (a stuck engine), or an attached stream that never ends, must not hold the run, its session's
 * queue and a global slot for ever: the run then ends as a dead container (diagnosed and recovered).
 */
export const KILL_WAIT_MS = 10_000;

export interface SandboxDriverOptions {
  backend: SandboxBackend;
  spec: SandboxSpec;
  log: Logger;
  startTimeoutMs: number;
  /** After an interrupt, how long the code has to stop before the sandbox is killed. */
  graceMs: number;
  /** Called once, as the sandbox's removal for good begins (before its container goes). Must not throw. */
  onRemove?: () => void;
}

/**
 * One sandbox and its agent: the channel, one run at a time with its watchdog, restarts after a crash or
 * a kill, and removal. Knows nothing of queues, pools or artifacts (the Session does), nor of the engine
 * behind the sandbox (the SandboxBackend does).
 */
export class SandboxDriver {
  readonly id: string;
  readonly options: SandboxDriverOptions;
  private sandboxHandle: Sandbox | undefined;
  private channel: AgentChannel | undefined;
  private readonly log: Logger;
  private current: { executionId: string; collector: ExecutionCollector; settle: (reason?: string) => void } | undefined;
  private stopping = false;
  /** Paused: the container is stopped on purpose (kept storage); its channel closing is not a crash. */
  private paused = false;
  private restarting: Promise<void> | undefined;
  private helloCounter = 0;
  /** What the agent said it can do beyond the base protocol, in its last hello (`pipe`). */
  private agentFeatures: ReadonlySet<string> = new Set();
  private readonly requests = new AgentRequests();
  private lastRunEndedAt = 0;
  /** The container is being replaced (new shared folders): its channel's end is not a crash. */
  private replacing = false;
  /** Called when the sandbox died outside a run and was (or could not be) restarted. */
  onRecovered: ((error?: unknown) => void) | undefined;
  /** Called when the sandbox died outside a run, before it is restarted. */
  onRecovering: (() => void) | undefined;

  constructor(options: SandboxDriverOptions) {
    this.options = options;
    this.id = options.spec.sessionId;
    this.log = options.log.child({ sessionId: this.id });
  }

  get connected(): boolean {
    return this.channel !== undefined && !this.channel.closed;
  }

  /** The engine's id of the container ('' before it is created). */
  get containerId(): string {
    return this.sandboxHandle?.containerId ?? '';
  }

  /** The channel this sandbox speaks over (its backend's default until it is created). */
  get channelKind(): ChannelKind {
    return this.sandboxHandle?.channel ?? this.options.backend.channel;
  }

  /** The engine runtime it runs under ('' before it is created). */
  get engineRuntime(): string {
    return this.sandboxHandle?.runtime ?? '';
  }

  get limits(): Limits {
    return this.options.spec.limits;
  }

  /** The sandbox itself, for files, commands and installs (through the Session's queue only). */
  get sandbox(): Sandbox {
    if (!this.sandboxHandle) throw new SandpitError('CONTAINER_DIED', 'The sandbox has not been created yet.');
    return this.sandboxHandle;
  }

  /**
   * How the workspace is read and written in bulk (a snapshot's tar stream, a restore's): through the agent's
   * pipe where it has one (agent-pipe.ts), else the engine's exec.
   */
  workspaceExec(): WorkspaceExec {
    return agentPipe(this, this.sandbox, this.agentFeatures.has('pipe')) ?? this.sandbox;
  }

  /** Creates the sandbox, starts it and completes the handshake. */
  async start(): Promise<void> {
    try {
      this.sandboxHandle = await this.options.backend.create(this.options.spec);
      // Stopped while the engine made it (a stop, Sandpit quitting): the remove ran with no sandbox to remove.
      if (this.stopping) throw new SandpitError('SESSION_NOT_FOUND', 'The session was stopped while its sandbox was being made.');
      await this.bootSandbox();
    } catch (error) {
      await this.remove().catch(() => undefined);
      throw error;
    }
  }

  /** Takes over a kept sandbox from its record (after Sandpit restarted): paused until resume(). */
  async adopt(record: SandboxRecord, options: ReopenOptions = {}): Promise<void> {
    this.sandboxHandle = await this.options.backend.reopen(this.options.spec, record, options);
    this.paused = true;
  }

  /**
   * Takes over a warm sandbox an earlier core left running (warm-handover.ts): its record is checked by the
   * backend, then its agent is connected and greeted; nothing is started. Throws (DENIED, CONTAINER_DIED) when
   * it cannot be: the caller removes what was checked, and nothing else.
   */
  async takeOver(record: SandboxRecord): Promise<void> {
    this.sandboxHandle = await this.options.backend.reopen(this.options.spec, record, { running: true });
    await this.bootSandbox();
  }

  /**
   * Lets go of a warm sandbox for the next core (warm-handover.ts): its channel closes and nothing is removed;
   * what the next core needs to find it is returned. The driver is not used again.
   */
  release(): SandboxRecord {
    this.paused = true;
    this.channel?.close();
    return this.sandbox.record();
  }

  /** What the data folder keeps of this sandbox for the next core. */
  record(): SandboxRecord {
    return this.sandbox.record();
  }

  /** Stops the container on purpose, keeping its storage (workspace, packages): memory is not kept. */
  async pause(): Promise<void> {
    this.paused = true;
    this.channel?.close();
    await this.sandboxHandle?.kill().catch(() => undefined);
    const deadline = Date.now() + this.options.startTimeoutMs;
    while (this.sandboxHandle && (await this.sandboxHandle.state()).running) {
      if (Date.now() > deadline) throw new SandpitError('CONTAINER_DIED', 'The sandbox container did not stop.');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Starts a paused sandbox again and reconnects its agent (a fresh one: variables are gone). */
  async resume(): Promise<void> {
    this.paused = false;
    await this.recover();
  }

  /** Runs code; resolves with the outcome of user code, rejects with CONTAINER_DIED / DOCKER_UNAVAILABLE. */
  async run(request: RunRequest): Promise<RunOutcome> {
    // OOM events are matched by time with a second of slack: one that came in during the last run is not this run's.
    const oomSince = Math.max(Date.now(), this.lastRunEndedAt + 1_000);
    // Code in a dialect of its agent's language (TypeScript) is translated first; code that cannot be never reaches it.
    const source = agentSource(this.options.spec.language, request.code);
    if ('error' in source) return { status: 'error', stdout: '', stderr: '', truncated: { stdout: false, stderr: false }, error: source.error, displays: [], durationMs: 0, stateLost: false };
    try {
      return await this.runOnce({ ...request, code: source.code }, oomSince);
    } finally {
      this.lastRunEndedAt = Date.now();
    }
  }

  private async runOnce(request: RunRequest, oomSince: number): Promise<RunOutcome> {
    if (this.restarting) await this.restarting;
    const channel = this.channel;
    if (!channel || channel.closed) throw new SandpitError('CONTAINER_DIED', 'The sandbox is not running; it is being restarted. Try again.');
    const startedAt = Date.now();
    const collector = new ExecutionCollector(request.outputLimit, {
      output: (stream, text) => request.onOutput(stream, text),
      display: (display) => request.onDisplay(display),
    });
    let timedOut = false;
    let killedByWatchdog = false;
    let watchdog: NodeJS.Timeout | undefined;
    let grace: NodeJS.Timeout | undefined;
    let killWait: NodeJS.Timeout | undefined;

    const closedReason = await new Promise<string | undefined>((resolve) => {
      let settled = false;
      const settle = (reason?: string): void => {
        if (settled) return;
        settled = true;
        resolve(reason);
      };
      this.current = { executionId: request.executionId, collector, settle };
      watchdog = setTimeout(() => {
        timedOut = true;
        this.log.info('run timed out; interrupting', { executionId: request.executionId });
        try {
          channel.send({ type: 'interrupt', id: request.executionId });
        } catch {
          // the channel is gone: the close handler settles the run
        }
        grace = setTimeout(() => {
          killedByWatchdog = true;
          this.log.warn('run ignored the interrupt; killing the container', { executionId: request.executionId });
          this.sandbox.kill().catch(() => undefined);
          killWait = setTimeout(() => {
            this.log.warn('the container could not be killed; ending the run', { executionId: request.executionId, containerId: this.containerId });
            settle('the container could not be killed');
            channel.close();
          }, KILL_WAIT_MS);
        }, this.options.graceMs);
      }, request.timeoutMs);
      try {
        channel.send({ type: 'execute', id: request.executionId, code: request.code, outputLimit: request.outputLimit });
      } catch (error) {
        settle(toErrorBody(error).message);
      }
    }).finally(() => {
      clearTimeout(watchdog);
      clearTimeout(grace);
      clearTimeout(killWait);
      this.current = undefined;
    });

    const collected = collector.snapshot();
    const durationMs = collected.done?.durationMs ?? Date.now() - startedAt;
    if (collected.done) {
      const sandbox = this.sandbox;
      // A bash command whose process was SIGKILLed (137) may have been the OOM killer's: its event can lag behind `done`.
      const oom = (collected.done.oomKills ?? 0) > 0 || sandbox.oomSince(oomSince) || (collected.done.exitCode === 137 && (await sandbox.waitForOom(oomSince, 500)));
      // Once the watchdog fired the run timed out, whatever the agent says: code that caught the interrupt and returned is not `ok`.
      let status: RunStatus = timedOut ? 'timeout' : collected.done.status;
      let message: string | undefined;
      if (status === 'timeout') message = `Stopped after ${timeLimitWords(request.timeoutMs)} (the time limit). Variables were kept.`;
      if (oom) {
        status = 'oom';
        message = `A process was killed for using more than the ${this.limits.memoryMb} MiB memory limit. The session is still usable.`;
      }
      if ((collected.done.straysKilled ?? 0) > 0) {
        const n = collected.done.straysKilled ?? 0;
        message = `${message ? `${message} ` : ''}${n === 1 ? 'A process' : `${n} processes`} this run left running in the background ${n === 1 ? 'was' : 'were'} stopped when it ended (what should last belongs in variables and files).`;
      }
      return { ...collected, status, durationMs, stateLost: false, message };
    }

    // Removed during the run (the session was stopped): nothing is restarted, and the caller is told who stopped it.
    if (this.stopping) {
      const stoppedBy = this.stopCause;
      return { ...collected, status: 'killed', durationMs: Date.now() - startedAt, stateLost: true, message: stoppedRunMessage(stoppedBy), stoppedBy };
    }
    // The channel ended before `done`: find out why, restart, and never report success.
    const death = await diagnoseDeath(this.sandbox, this.options.backend, oomSince);
    if ('exitCode' in death) this.deathExitCode = death.exitCode;
    if (death.cause === 'engine') {
      throw new SandpitError('DOCKER_UNAVAILABLE', 'The Docker engine stopped during the run; the run did not finish.', { partial: collected });
    }
    // Restart before answering, so the next run finds the session ready. A restart that fails because
    // the engine is going away makes this an engine failure, not a sandbox one.
    const recoverError = await this.recover().then(
      () => undefined,
      (error: unknown) => error,
    );
    if (recoverError !== undefined && !(await engineAnswers(this.options.backend))) {
      throw new SandpitError('DOCKER_UNAVAILABLE', 'The Docker engine stopped during the run; the run did not finish.', { partial: collected });
    }
    this.startFailure = recoverError === undefined ? undefined : toErrorBody(recoverError).message;
    // What happened to the sandbox after the run, as it is: started again, or not (and why).
    const after =
      this.startFailure === undefined
        ? 'the sandbox was restarted: variables were lost; the files in /workspace were kept.'
        : `the sandbox was stopped, and it could not be started again: ${this.startFailure}`;
    if (killedByWatchdog || timedOut) {
      return {
        ...collected,
        status: 'timeout',
        durationMs: Date.now() - startedAt,
        stateLost: true,
        message: `Stopped after ${timeLimitWords(request.timeoutMs)} (the time limit). The code did not respond to the interrupt, so ${after}`,
      };
    }
    if (death.cause === 'oom') {
      return {
        ...collected,
        status: 'oom',
        durationMs: Date.now() - startedAt,
        stateLost: true,
        message: `The code used more than the ${this.limits.memoryMb} MiB memory limit and was stopped. Then ${after}`,
      };
    }
    const engine = this.sandbox.unreportedOom;
    const why =
      engine && this.deathExitCode === 137
        ? `it was killed (exit code 137); ${engine} does not report out-of-memory kills, so this may have been the ${this.limits.memoryMb} MiB memory limit`
        : (closedReason ?? death.cause);
    throw new SandpitError('CONTAINER_DIED', `The sandbox stopped during the run (${why}). Then ${after}`, {
      partial: { stdout: collected.stdout, stderr: collected.stderr },
      stateLost: true,
    });
  }

  /** Why the sandbox could not be started again after the last run that ended it, or undefined. */
  startFailure: string | undefined;

  /** Sends SIGINT to the running code if `executionId` (or any run) is current. */
  interrupt(executionId?: string): boolean {
    const current = this.current;
    if (!current || (executionId && current.executionId !== executionId) || !this.channel) return false;
    try {
      this.channel.send({ type: 'interrupt', id: current.executionId });
      return true;
    } catch {
      return false;
    }
  }

  /** Kills and restarts the sandbox: variables are lost, the files in /workspace stay (it is on disk). */
  async restart(): Promise<void> {
    this.paused = false;
    await this.sandboxHandle?.kill().catch(() => undefined);
    await this.recover();
  }

  /**
   * Starts the sandbox again in a new container with these shared folders: variables are lost, /workspace
   * and the installed packages stay. The old channel's end is this restart, not a crash to recover from.
   */
  async replaceFolders(folders: SandboxFolder[]): Promise<void> {
    if (this.restarting) await this.restarting.catch(() => undefined);
    if (this.stopping) return;
    const sandbox = this.sandbox;
    const work = async (): Promise<void> => {
      // Set before the old channel closes, so its close handler neither recovers nor reports this restart.
      await Promise.resolve();
      this.log.info('restarting the sandbox with new shared folders', { containerId: this.containerId });
      this.channel?.close();
      await sandbox.replaceFolders(folders);
      await this.bootSandbox();
    };
    this.replacing = true;
    this.restarting = work().finally(() => {
      this.replacing = false;
      this.restarting = undefined;
    });
    return this.restarting;
  }

  /** Why the sandbox is being removed, for a run it cuts short. */
  private stopCause: StopCause = { by: 'sandpit' };

  /** Removes the sandbox with its storage. Safe to call more than once. */
  async remove(cause: StopCause = { by: 'sandpit' }): Promise<void> {
    if (!this.stopping) {
      this.stopCause = cause;
      this.options.onRemove?.();
    }
    this.stopping = true;
    this.channel?.close();
    this.current?.settle('the session was stopped');
    await this.sandboxHandle?.remove();
  }

  private async bootSandbox(): Promise<void> {
    const channel = await this.sandbox.start(this.options.startTimeoutMs);
    channel.onMessage((message) => this.dispatch(message));
    channel.onClose((reason) => this.handleClose(channel, reason));
    this.channel = channel;
    await this.handshake(channel);
  }

  private async handshake(channel: AgentChannel): Promise<void> {
    const id = `h${++this.helloCounter}`;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new SandpitError('CONTAINER_DIED', `The sandbox agent did not answer within ${this.options.startTimeoutMs} ms.`)), this.options.startTimeoutMs);
      const settle = (error?: SandpitError): void => {
        clearTimeout(timer);
        if (error) reject(error);
        else resolve();
      };
      this.pendingHello = { id, settle };
      channel.onClose(() => { clearTimeout(timer); reject(new SandpitError('CONTAINER_DIED', 'The sandbox agent exited while starting.')); });
      channel.send({ type: 'hello', id });
    }).finally(() => {
      this.pendingHello = undefined;
    });
  }

  private pendingHello: { id: string; settle: (error?: SandpitError) => void } | undefined;

  /**
   * A request to the agent that is not a run (a file operation, reaping strays): sent on the channel,
   * answered through `collect`, failed by its timeout or by the channel closing.
   */
  request<T>(build: (id: string) => HostMessage[], collect: ReplyCollector<T>, timeoutMs: number, what: string): Promise<T> {
    return this.requests.send(this.channel, build, collect, timeoutMs, what);
  }

  private dispatch(message: AgentMessage): void {
    if (isRequestReply(message)) {
      this.requests.accept(message);
      return;
    }
    if (message.type === 'hello') {
      if (this.pendingHello?.id === message.id) {
        this.agentFeatures = new Set(message.features ?? []);
        this.pendingHello.settle(wrongLanguage(message.language, this.options.spec));
      }
      return;
    }
    const current = this.current;
    if (!current || message.id !== current.executionId) return;
    current.collector.accept(message);
    if (message.type === 'done') current.settle();
  }

  private handleClose(channel: AgentChannel, reason?: string): void {
    if (this.channel !== channel) return;
    this.channel = undefined;
    this.requests.failAll(reason ?? 'the sandbox connection closed');
    if (this.current) {
      this.current.settle(reason ?? 'the sandbox connection closed');
      return; // run() diagnoses and recovers
    }
    // Stopped on purpose: being removed, paused, or replaced by a container with other shared folders (its caller reports).
    if (this.stopping || this.paused || this.replacing) return;
    this.log.warn('sandbox container stopped while idle; restarting', { containerId: this.containerId, reason });
    this.onRecovering?.();
    this.recover().then(
      () => this.onRecovered?.(),
      (error: unknown) => this.onRecovered?.(error),
    );
  }

  /** The exit code diagnoseDeath last saw. */
  private deathExitCode: number | undefined;

  /** Starts the (stopped) container again and reconnects. Concurrent callers share one attempt. */
  private recover(): Promise<void> {
    // A paused sandbox stays stopped until resume() (a run cut short by the pause is not restarted).
    if (this.stopping || this.paused) return Promise.resolve();
    this.restarting ??= (async () => {
      const sandbox = this.sandbox;
      this.log.info('restarting the sandbox container', { containerId: this.containerId });
      await sandbox.kill().catch(() => undefined);
      const deadline = Date.now() + this.options.startTimeoutMs;
      while ((await sandbox.state()).running) {
        if (Date.now() > deadline) throw new SandpitError('CONTAINER_DIED', 'The sandbox container did not stop.');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await this.bootSandbox();
    })().finally(() => {
      this.restarting = undefined;
    });
    return this.restarting;
  }
}
