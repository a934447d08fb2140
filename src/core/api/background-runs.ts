import type { MethodOutput, MethodParsedInput } from '../../shared/api/contract';
import { SandpitError, toErrorBody } from '../../shared/api/errors';
import type { BackgroundRun } from '../../shared/domain/background-run';
import type { ExecutionResult, StreamName } from '../../shared/domain/execution';
import type { CommandResult } from '../../shared/domain/packages';
import type { EventBus } from '../events/event-bus';
import type { Logger } from '../log';
import type { SessionManager } from '../sessions/session-manager';
import { newId } from '../util/ids';
import type { CallContext, Handlers } from './api-types';
import { call } from './dispatcher';
import { KEEP_FINISHED_RUNS, STOPPED_AT_QUIT } from './background-run-store';
import type { BackgroundRunStore, RunRecord } from './background-run-store';
import { RunOutputBuffer } from './run-output-buffer';

/** A background run's time limit when the caller sets none: one hour (never more than Settings allow). */
export const DEFAULT_BACKGROUND_TIMEOUT_MS = 3_600_000;
/** The longest background run Settings allow when the person set nothing. */
export const DEFAULT_BACKGROUND_MAX_MINUTES = 60;
/** A command's own limit (sessions.runCommand takes at most an hour). */
const MAX_COMMAND_TIMEOUT_MS = 3_600_000;
const PREVIEW_CHARS = 200;
/** How many times a cancelled command is sent its stop, half a second apart. */
const COMMAND_STOP_TRIES = 20;

export interface BackgroundRunsDeps {
  bus: EventBus;
  sessions: SessionManager;
  /** The policy-wrapped handlers: each run is asked about and audited by its own method's row. */
  api: () => Handlers;
  /** Settings: the longest background run, in minutes. */
  maxMinutes: () => number;
  /** The records in the data folder: a finished run's result is still there after a restart. */
  store: BackgroundRunStore;
  log: Logger;
}

interface Entry {
  view: BackgroundRun;
  /** Who may see it: the caller's run owner (client name + token); undefined = started in the panel. */
  owner: string | undefined;
  output: RunOutputBuffer;
  execution?: ExecutionResult;
  command?: CommandResult;
  abort: AbortController;
  waiters: Set<() => void>;
}

/** Who owns the background runs a caller starts, and may fetch them: its run owner, else its principal. */
export function runOwnerOf(context: CallContext): string | undefined {
  return context.runOwner ?? context.principal;
}

function preview(text: string): string {
  const flat = text.trim();
  return flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS - 1)}…` : flat;
}

function secondsSince(iso: string | undefined): number {
  return iso ? Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000)) : 0;
}

const finished = (run: BackgroundRun): boolean => run.state === 'done' || run.state === 'failed';

/**
 * The background runs (issue 23): each is an ordinary call of sessions.execute, runCommand or runFile — asked
 * about, audited and queued on its session exactly like a foreground one — whose result is kept here instead of
 * going back to a waiting request. Callers fetch its output from a cursor, wait for it, cancel it, list them.
 */
export class BackgroundRuns {
  private readonly entries = new Map<string, Entry>();
  /** Ended runs whose record is written just after their waiters are answered (saveSoon). */
  private readonly unsaved = new Map<string, Entry>();
  /** The runs of earlier cores, read back from the data folder (every lookup waits for them). */
  private readonly loaded: Promise<void>;

  constructor(private readonly deps: BackgroundRunsDeps) {
    this.loaded = deps.store.load().then(
      (records) => {
        for (const record of records) if (!this.entries.has(record.view.runId)) this.entries.set(record.view.runId, restored(record));
        this.forgetOld();
      },
      (error: unknown) => deps.log.warn('could not read the background runs of the data folder', { error: toErrorBody(error).message }),
    );
    deps.bus.on('execution.started', (event) => {
      const entry = this.entries.get(event.executionId);
      if (!entry) return;
      this.update(entry, { sessionId: event.sessionId });
      // Cancelled while it was still queued: stopped as soon as it starts.
      if (entry.view.cancelRequested) this.stopRunning(entry);
    });
    deps.bus.on('execution.output', (event) => {
      const entry = this.entries.get(event.executionId);
      if (entry) this.append(entry, event.stream, event.text);
    });
  }

  /** Starts a run in the background and returns its first view at once. */
  start(input: MethodParsedInput<'runs.start'>, context: CallContext): BackgroundRun {
    const capMs = this.deps.maxMinutes() * 60_000;
    const kindCapMs = input.kind === 'command' ? Math.min(capMs, MAX_COMMAND_TIMEOUT_MS) : capMs;
    if (input.timeoutMs !== undefined && input.timeoutMs > kindCapMs) {
      throw new SandpitError(
        'INVALID_INPUT',
        `A background ${input.kind === 'command' ? 'command' : 'run'} may take at most ${Math.round(kindCapMs / 60_000)} minutes` +
          (input.kind === 'command' && kindCapMs === MAX_COMMAND_TIMEOUT_MS ? ' (the limit of any command).' : ' (the "Longest background run" in Settings).') +
          ' Ask for less time, or ask the person to raise that setting.',
      );
    }
    const timeoutMs = input.timeoutMs ?? Math.min(DEFAULT_BACKGROUND_TIMEOUT_MS, kindCapMs);
    const runId = newId('run', 8);
    const what = input.kind === 'code' ? input.code : input.kind === 'command' ? input.command : input.path;
    const entry: Entry = {
      view: {
        runId,
        kind: input.kind,
        state: 'queued',
        ...(input.sessionId === undefined ? {} : { sessionId: input.sessionId }),
        ...(context.client === undefined ? {} : { client: context.client }),
        what: preview(what),
        createdAt: new Date().toISOString(),
        timeoutMs,
        waiting: input.sessionId === undefined ? 'waiting for the session to be ready' : `waiting for session ${input.sessionId}`,
        cancelRequested: false,
        outputChars: 0,
      },
      owner: runOwnerOf(context),
      output: new RunOutputBuffer(),
      abort: new AbortController(),
      waiters: new Set(),
    };
    this.entries.set(runId, entry);
    this.forgetOld();
    // Only who is calling carries over: the request that started the run is over as soon as it is answered.
    const inner: CallContext = {
      transport: context.transport,
      ...(context.client === undefined ? {} : { client: context.client }),
      ...(context.principal === undefined ? {} : { principal: context.principal }),
      ...(context.runOwner === undefined ? {} : { runOwner: context.runOwner }),
      ...(context.approvalFloor === undefined ? {} : { approvalFloor: context.approvalFloor }),
      signal: entry.abort.signal,
      backgroundRun: runId,
      onWaiting: (waiting) => this.update(entry, waiting === undefined ? { waiting: undefined } : { waiting }),
      onProgress: (what) => this.update(entry, { waiting: what }),
      onSession: (sessionId) => this.update(entry, { sessionId }),
      onStarted: () => {
        this.update(entry, { state: 'running', startedAt: new Date().toISOString(), waiting: undefined });
        this.save(entry);
      },
      // A command tells its output here as it comes (code runs tell theirs on the bus).
      ...(input.kind === 'command' ? { onOutput: (stream: StreamName, text: string) => this.append(entry, stream, text) } : {}),
    };
    const api = this.deps.api();
    const running: Promise<ExecutionResult | CommandResult> =
      input.kind === 'code'
        ? call(api, 'sessions.execute', { sessionId: input.sessionId, language: input.language, code: input.code, timeoutMs, executionId: runId }, inner)
        : input.kind === 'file'
          ? call(api, 'sessions.runFile', { sessionId: input.sessionId, path: input.path, timeoutMs, executionId: runId }, inner)
          : call(api, 'sessions.runCommand', { sessionId: input.sessionId, command: input.command, timeoutMs }, inner);
    running.then(
      (result) => this.finish(entry, result),
      (error: unknown) => {
        const body = toErrorBody(error);
        if (this.deps.sessions.quitting) return this.stoppedAtQuit(entry);
        this.update(entry, { state: 'failed', waiting: undefined, endedAt: new Date().toISOString(), error: { code: body.code, message: body.message } });
        this.save(entry);
        this.wake(entry);
      },
    );
    this.save(entry);
    this.deps.log.info('background run started', { runId, kind: input.kind, client: context.client });
    return { ...entry.view };
  }

  /** The run, its output from `since`, and its full result once it is done; waits up to `waitMs` for something new. */
  async get(input: MethodParsedInput<'runs.get'>, context: CallContext): Promise<MethodOutput<'runs.get'>> {
    await this.loaded;
    const entry = this.entry(input.runId, context);
    if (input.waitMs > 0 && !finished(entry.view) && entry.output.length <= input.since) {
      await this.waitForNews(entry, input.waitMs, context.signal);
    }
    const slice = entry.output.slice(input.since, input.maxChars);
    return {
      run: { ...entry.view },
      ...slice,
      ...(entry.execution ? { execution: entry.execution } : {}),
      ...(entry.command ? { command: entry.command } : {}),
    };
  }

  /** Stops a run: a queued one is withdrawn (or stopped the moment it starts), a running one interrupted. */
  async cancel(runId: string, context: CallContext): Promise<BackgroundRun> {
    await this.loaded;
    const entry = this.entry(runId, context);
    if (finished(entry.view)) return { ...entry.view };
    this.update(entry, { cancelRequested: true });
    this.deps.log.info('background run cancelled', { runId, by: context.client ?? (context.principal === undefined ? 'the person' : 'a client') });
    // Withdraws an approval question it waits for; a run waiting in its session's queue is stopped when it starts.
    entry.abort.abort();
    if (entry.view.state === 'running') this.stopRunning(entry);
    return { ...entry.view };
  }

  /** The caller's runs (every run for the panel), newest first. */
  async list(sessionId: string | undefined, context: CallContext): Promise<BackgroundRun[]> {
    await this.loaded;
    return [...this.entries.values()]
      .filter((e) => this.mayUse(e, context) && (sessionId === undefined || e.view.sessionId === sessionId))
      .map((e) => ({ ...e.view }))
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  /** Every record asked for so far, written to the data folder. */
  flush(): Promise<void> {
    for (const entry of this.unsaved.values()) this.save(entry);
    this.unsaved.clear();
    return this.deps.store.flush();
  }

  /**
   * What a call on `sessionId` waits for, in plain words, when `ahead` jobs are queued before it (undefined when
   * none): its place in the queue and the background run ahead of it, if one is.
   */
  describeQueue(sessionId: string, ahead: number): string | undefined {
    if (ahead <= 0) return undefined;
    const background = [...this.entries.values()].find((e) => e.view.sessionId === sessionId && e.view.state === 'running');
    const jobs = `${ahead} ${ahead === 1 ? 'job' : 'jobs'} ahead of this one`;
    if (!background) return `waiting for session ${sessionId}: ${jobs}; it starts when ${ahead === 1 ? 'that ends' : 'they end'}`;
    const run = background.view;
    return (
      `waiting for session ${sessionId}: ${jobs}, background run ${run.runId} (${run.kind}: ${preview(run.what).slice(0, 60)}) running for ${secondsSince(run.startedAt)} s; ` +
      `it starts when ${ahead === 1 ? 'that ends' : 'they end'} (cancel_run ${run.runId} stops it)`
    );
  }

  /** Whether a session has a background run not finished yet (its owner's MCP session ending does not stop it). */
  holds(sessionId: string): boolean {
    return [...this.entries.values()].some((e) => e.view.sessionId === sessionId && !finished(e.view));
  }

  private finish(entry: Entry, result: ExecutionResult | CommandResult): void {
    const isCommand = entry.view.kind === 'command';
    const command = isCommand ? (result as CommandResult) : undefined;
    const execution = isCommand ? undefined : (result as ExecutionResult);
    // Sandpit quitting stopped it (its session was stopped): said in the same words after the restart.
    if (this.deps.sessions.quitting && ((command !== undefined && command.exitCode !== 0) || (execution?.status === 'killed' && execution.stoppedBy?.by === 'sandpit'))) {
      this.stoppedAtQuit(entry);
      return;
    }
    if (command) {
      entry.command = command;
      // Its output came as it ran; a command that told none (an engine that cannot) has its result's.
      if (entry.output.length === 0) {
        entry.output.append('stdout', command.stdout);
        entry.output.append('stderr', command.stderr);
      }
    }
    if (execution) entry.execution = execution;
    const status = execution
      ? execution.status
      : command!.timedOut
        ? 'timeout'
        : entry.view.cancelRequested && command!.exitCode !== 0
          ? 'interrupted'
          : command!.exitCode === 0
            ? 'ok'
            : 'error';
    this.update(entry, {
      state: 'done',
      status,
      sessionId: result.sessionId,
      waiting: undefined,
      endedAt: new Date().toISOString(),
      outputChars: entry.output.length,
    });
    this.saveSoon(entry);
  }

  private append(entry: Entry, stream: StreamName, text: string): void {
    entry.output.append(stream, text);
    entry.view.outputChars = entry.output.length;
    this.wake(entry);
  }

  private stoppedAtQuit(entry: Entry): void {
    this.update(entry, { state: 'failed', waiting: undefined, endedAt: new Date().toISOString(), error: { code: 'STOPPED', message: STOPPED_AT_QUIT } });
    this.save(entry);
    this.wake(entry);
  }

  /**
   * The record of a run that just ended, written once the callers waiting for that end (get_run with wait_seconds) have
   * had their answer: serializing a big result is milliseconds of the one thread, and the answer should not wait for it.
   * flush() writes what is still waiting.
   */
  private saveSoon(entry: Entry): void {
    this.unsaved.set(entry.view.runId, entry);
    setImmediate(() => {
      if (this.unsaved.delete(entry.view.runId)) this.save(entry);
    });
  }

  private save(entry: Entry): void {
    this.deps.store.save({
      version: 1,
      ...(entry.owner === undefined ? {} : { owner: entry.owner }),
      view: entry.view,
      ...(entry.execution ? { execution: entry.execution } : {}),
      ...(entry.command ? { command: entry.command } : {}),
    });
  }

  private stopRunning(entry: Entry): void {
    const { sessionId, runId, kind } = entry.view;
    if (!sessionId) return;
    const failed = (error: unknown): void => this.deps.log.warn('could not stop a background run', { runId, error: toErrorBody(error).message });
    try {
      const session = this.deps.sessions.session(sessionId);
      if (kind === 'command') this.stopCommand(entry, session).catch(failed);
      else session.interrupt();
    } catch (error) {
      failed(error);
    }
  }

  /**
   * A command that just started may not have its process yet when it is stopped: the stop is sent again every half
   * second until the command ends (for at most COMMAND_STOP_TRIES tries).
   */
  private async stopCommand(entry: Entry, session: { stopCommand(): Promise<void> }): Promise<void> {
    for (let i = 0; i < COMMAND_STOP_TRIES && !finished(entry.view); i += 1) {
      await session.stopCommand();
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  private entry(runId: string, context: CallContext): Entry {
    const entry = this.entries.get(runId);
    // Someone else's run is "not found", word for word like one that never existed: ids are not an oracle.
    if (!entry || !this.mayUse(entry, context)) {
      throw new SandpitError('NOT_FOUND', `No background run ${runId} of yours: it never existed, was started by another client, or ended long ago. list_runs shows yours.`);
    }
    return entry;
  }

  /** The panel (the person) sees every run; a client only those it started (same client name and token). */
  private mayUse(entry: Entry, context: CallContext): boolean {
    return context.principal === undefined || (entry.owner !== undefined && entry.owner === runOwnerOf(context));
  }

  private update(entry: Entry, change: Partial<BackgroundRun>): void {
    const next = { ...entry.view, ...change };
    for (const key of Object.keys(change) as Array<keyof BackgroundRun>) if (change[key] === undefined) delete next[key];
    // A run that started keeps saying so; a late "waiting" note (an approval answered) does not move it back.
    if (entry.view.state !== 'queued' && next.state === 'queued') next.state = entry.view.state;
    entry.view = next;
    this.deps.bus.emit('run.updated', { ...entry.view });
    this.wake(entry);
  }

  private wake(entry: Entry): void {
    for (const waiter of [...entry.waiters]) waiter();
  }

  private waitForNews(entry: Entry, waitMs: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        entry.waiters.delete(check);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const outputAt = entry.output.length;
      const check = (): void => {
        if (finished(entry.view) || entry.output.length > outputAt) done();
      };
      const timer = setTimeout(done, waitMs);
      entry.waiters.add(check);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  private forgetOld(): void {
    const done = [...this.entries.values()].filter((e) => finished(e.view)).sort((a, b) => a.view.createdAt.localeCompare(b.view.createdAt));
    for (const entry of done.slice(0, Math.max(0, done.length - KEEP_FINISHED_RUNS))) {
      this.entries.delete(entry.view.runId);
      this.deps.store.forget(entry.view.runId);
    }
  }
}

/** A run of an earlier core, from its record: its output is its result's (stdout, then stderr). */
function restored(record: RunRecord): Entry {
  const output = new RunOutputBuffer();
  const result = record.execution ?? record.command;
  if (result) {
    output.append('stdout', result.stdout);
    output.append('stderr', result.stderr);
  }
  return {
    view: { ...record.view, outputChars: output.length },
    owner: record.owner,
    output,
    ...(record.execution ? { execution: record.execution } : {}),
    ...(record.command ? { command: record.command } : {}),
    abort: new AbortController(),
    waiters: new Set(),
  };
}
