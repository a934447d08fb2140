import { Writable } from 'node:stream';
import { SandpitError, toErrorBody } from '../../shared/api/errors';
import type { ProcessInfo, ProcessOutput, ProcessState } from '../../shared/domain/process';
import {
  MAX_PROCESSES_PER_SESSION,
  PROCESS_OUTPUT_MAX_BYTES,
  PROCESS_OUTPUT_RING_BYTES,
} from '../../shared/domain/process';
import type { SessionState } from '../../shared/domain/session';
import type { EventBus } from '../events/event-bus';
import type { Logger } from '../log';
import { WORKSPACE_DIR } from '../sandbox/sandbox-paths';
import { newId } from '../util/ids';
import { ProcessRing, incompleteUtf8Tail } from './process-ring';
import type { Session } from './session';

/**
 * The leader of every long-running process: `sh -c WRAPPER sandpit-process COMMAND CWD`, started by the engine
 * (exec), so it leads a session of its own whose parent is outside the sandbox. The agents spare exactly such
 * sessions when they stop what a run left behind (argv[3] is the mark: executor-image/agents/PROTOCOL.md).
 * It says its pid first, sends its errors to the output, and waits for the command (never `exec`s it).
 */
const WRAPPER = 'echo "$$"; exec 2>&1 </dev/null; cd -- "$2" || exit 126; sh -c "$1"; exit $?';
export const PROCESS_MARK = 'sandpit-process';

/** An exec's longest wait (Node's timers hold at most 24.8 days, the engine call adds its own margin). */
const LIFETIME_MS = 20 * 24 * 3_600_000;
const STOP_GRACE_MS = 3_000;
const PID_TIMEOUT_MS = 15_000;
/** Ended processes listed per session (the oldest are forgotten). */
const KEEP_ENDED = 50;

export interface StartProcessSpec {
  command: string;
  name?: string;
  /** Relative to /workspace (already checked). */
  cwd?: string;
  /** Kept out of lists (a preview's forwarder); ends with its session like every process. */
  hidden?: boolean;
}

/** Told when a process ends (its audit row is completed from this). */
export type ProcessEndListener = (info: ProcessInfo, tail: string) => void;

interface Running {
  info: ProcessInfo;
  session: Session;
  /** Who may use it: its session's owner (undefined: a panel session, usable by every client). */
  owner: string | undefined;
  ring: ProcessRing;
  pid?: number;
  hidden: boolean;
  ended: boolean;
  /** Why it is being stopped (set before it is signalled, so its end reads as stopped). */
  stopping?: string;
  endWaiters: Array<() => void>;
  onEnd: ProcessEndListener[];
}

/** Why what runs beside a session (its processes, its previews) ended, from the state the session went to. */
export function endReason(state: SessionState): string | undefined {
  if (state === 'restarting') return 'its session restarted';
  if (state === 'paused') return 'its session was paused';
  if (state === 'stopping' || state === 'stopped') return 'its session was stopped';
  if (state === 'failed') return 'its sandbox stopped';
  return undefined;
}

/**
 * Processes that keep running beyond the call that started them (start_process): each one an exec in its
 * session's sandbox as the sandbox user, under the session's limits, with its output in a 1 MiB ring. They end
 * with their session (stop, restart, pause, Sandpit quitting) and are then listed as stopped, saying why.
 */
export class ProcessManager {
  private readonly all = new Map<string, Running>();
  /** Why each session's processes are ending (set when the session leaves its running states). */
  private readonly ending = new Map<string, string>();

  constructor(
    private readonly bus: EventBus,
    private readonly log: Logger,
  ) {
    bus.on('session.updated', (info) => {
      const reason = endReason(info.state);
      if (reason) this.ending.set(info.id, reason);
      else if (info.state === 'ready' || info.state === 'busy') this.ending.delete(info.id);
    });
    bus.on('session.removed', ({ sessionId }) => {
      this.ending.set(sessionId, 'its session was stopped');
      for (const p of this.all.values())
        if (p.info.sessionId === sessionId && !p.ended) this.endNow(p, 'stopped', undefined, 'its session was stopped');
    });
  }

  /** Starts `spec.command` in the session's sandbox; resolves once it runs (its pid is known). */
  async start(session: Session, spec: StartProcessSpec, onEnd?: ProcessEndListener): Promise<ProcessInfo> {
    if (!spec.hidden && this.runningIn(session.id).filter((p) => !p.hidden).length >= MAX_PROCESSES_PER_SESSION) {
      throw new SandpitError(
        'LIMIT_EXCEEDED',
        `Session ${session.id} already runs ${MAX_PROCESSES_PER_SESSION} processes: stop one first (stop_process).`,
      );
    }
    const cwd = spec.cwd ? `${WORKSPACE_DIR}/${spec.cwd}` : WORKSPACE_DIR;
    const id = newId('proc', 10);
    const p: Running = {
      info: {
        id,
        sessionId: session.id,
        name: (spec.name ?? spec.command.split('\n')[0]!).slice(0, 120),
        command: spec.command,
        cwd,
        state: 'running',
        startedAt: new Date().toISOString(),
        outputBytes: 0,
        lastLines: [],
      },
      session,
      owner: session.identity.owner,
      ring: new ProcessRing(PROCESS_OUTPUT_RING_BYTES),
      hidden: spec.hidden ?? false,
      ended: false,
      endWaiters: [],
      onEnd: onEnd ? [onEnd] : [],
    };
    await session.withSandbox('Starting a process', async () => {
      this.ending.delete(session.id);
      this.all.set(id, p);
      const pid = await this.launch(p, cwd);
      p.pid = pid;
    });
    this.forgetOld(session.id);
    this.announce(p);
    this.log.info('started a long-running process', { sessionId: session.id, processId: id, pid: p.pid });
    return this.view(p);
  }

  /** Calls `listener` when the process ends (at once when it has). */
  onEnd(id: string, listener: ProcessEndListener): void {
    const p = this.find(id);
    if (p.ended) listener(this.view(p), p.ring.lastLines(20).join('\n'));
    else p.onEnd.push(listener);
  }

  /** Oldest first; `visible` says which a caller may see (default: all). */
  list(visible?: (sessionId: string, owner: string | undefined) => boolean): ProcessInfo[] {
    return [...this.all.values()]
      .filter((p) => !p.hidden && (!visible || visible(p.info.sessionId, p.owner)))
      .map((p) => this.view(p));
  }

  get(id: string): ProcessInfo {
    return this.view(this.find(id));
  }

  /** Whose it is (its session's owner; undefined: usable by every client), also once its session is gone. */
  ownerOf(id: string): string | undefined {
    return this.find(id).owner;
  }

  /** New output since `since` (default: the oldest kept), waiting up to `waitMs` for some when there is none. */
  async output(
    id: string,
    since: number | undefined,
    waitMs: number,
    maxBytes = PROCESS_OUTPUT_MAX_BYTES,
  ): Promise<ProcessOutput> {
    const p = this.find(id);
    const cursor = since ?? p.ring.start;
    if (cursor > p.ring.end)
      throw new SandpitError(
        'INVALID_INPUT',
        `The cursor ${cursor} is past the end of process ${id}'s output (${p.ring.end} bytes so far).`,
      );
    await p.ring.waitPast(cursor, waitMs, { done: p.ended, onDone: (wake) => p.endWaiters.push(wake) });
    const { bytes, from, dropped } = p.ring.read(cursor, maxBytes);
    // A character cut in two waits for its other half (unless the process has ended: nothing more comes).
    const hold = p.ended ? 0 : incompleteUtf8Tail(bytes);
    const shown = bytes.subarray(0, bytes.length - hold);
    const next = from + shown.length;
    return {
      process: this.view(p),
      text: shown.toString('utf8'),
      since: from,
      next,
      droppedBytes: dropped,
      more: next < p.ring.end - hold,
    };
  }

  /** SIGTERM to its process group, SIGKILL after a grace period; resolves once it ended. */
  async stop(id: string, reason: string): Promise<ProcessInfo> {
    const p = this.find(id);
    if (p.ended) return this.view(p);
    p.stopping ??= reason;
    if (p.pid !== undefined) {
      await this.signal(p, 'TERM');
      if (!(await this.waitEnd(p, STOP_GRACE_MS))) await this.signal(p, 'KILL');
      // The group again: what ignored SIGTERM while the leader ended (a pid is not reused this soon).
      else await this.signal(p, 'KILL');
    }
    if (!(await this.waitEnd(p, STOP_GRACE_MS)))
      this.log.warn('a stopped process did not end in time', { processId: id });
    this.endNow(p, 'stopped', undefined, reason);
    return this.view(p);
  }

  /** Sandpit quits: every process is listed (and audited) as stopped for that reason. */
  shutdown(reason: string): void {
    for (const p of this.all.values()) if (!p.ended) this.endNow(p, 'stopped', undefined, reason);
  }

  /** The running processes of a session (hidden ones too). */
  runningIn(sessionId: string): Array<{ id: string; hidden: boolean }> {
    return [...this.all.values()]
      .filter((p) => p.info.sessionId === sessionId && !p.ended)
      .map((p) => ({ id: p.info.id, hidden: p.hidden }));
  }

  private find(id: string): Running {
    const p = this.all.get(id);
    if (!p) throw new SandpitError('INVALID_INPUT', `There is no process ${id} (list_processes lists them).`);
    return p;
  }

  /** Starts the exec and resolves with the leader's pid (its first line of output). */
  private launch(p: Running, cwd: string): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      let head = '';
      let pid: number | undefined;
      const timer = setTimeout(
        () => reject(new SandpitError('EXEC_TIMEOUT', 'The process did not start within 15 seconds.')),
        PID_TIMEOUT_MS,
      );
      const sink = new Writable({
        write: (chunk: Buffer, _encoding, done) => {
          if (pid === undefined) {
            head += chunk.toString('latin1');
            const newline = head.indexOf('\n');
            if (newline < 0) return done();
            pid = Number(head.slice(0, newline));
            clearTimeout(timer);
            resolve(pid);
            chunk = Buffer.from(head.slice(newline + 1), 'latin1');
          }
          this.append(p, chunk);
          done();
        },
      });
      p.session.runtime.sandbox
        .exec(['sh', '-c', WRAPPER, PROCESS_MARK, p.info.command, cwd], {
          workingDir: WORKSPACE_DIR,
          timeoutMs: LIFETIME_MS,
          maxOutputBytes: 64 * 1024,
          stdoutTo: sink,
        })
        .then(
          (r) => {
            clearTimeout(timer);
            if (pid === undefined)
              reject(
                new SandpitError(
                  'CONTAINER_DIED',
                  `The process could not start${r.stderr ? `: ${r.stderr.trim().slice(0, 500)}` : ''}.`,
                ),
              );
            void this.whyEnded(p, r.exitCode).then((why) =>
              this.endNow(p, why ? 'stopped' : 'exited', why ? undefined : r.exitCode, why),
            );
          },
          (error: unknown) => {
            clearTimeout(timer);
            reject(error instanceof Error ? error : new Error(String(error)));
            this.endNow(
              p,
              'stopped',
              undefined,
              `it could not go on (${toErrorBody(error).message.replace(/\.$/, '')})`,
            );
          },
        );
    });
  }

  /**
   * Why an exec ended, when it was not by itself: stopped, or its session left. A pause kills the container
   * before the session says it paused: an end by SIGKILL (or with no status) waits a moment for the session's word.
   */
  private async whyEnded(p: Running, exitCode: number): Promise<string | undefined> {
    const known = (): string | undefined => p.stopping ?? this.ending.get(p.info.sessionId);
    if (known() || (exitCode >= 0 && exitCode !== 137)) return known();
    for (let waited = 0; waited < 2_000 && !known(); waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
    if (known()) return known();
    const running = await p.session.runtime.sandbox.state().then(
      (state) => state.running,
      () => false,
    );
    return running ? undefined : 'its sandbox stopped';
  }

  private append(p: Running, chunk: Buffer): void {
    if (p.ended || chunk.length === 0) return;
    p.ring.push(chunk);
    this.bus.emit('process.output', {
      sessionId: p.info.sessionId,
      processId: p.info.id,
      text: chunk.toString('utf8'),
    });
  }

  private async signal(p: Running, signal: 'TERM' | 'KILL'): Promise<void> {
    try {
      await p.session.runtime.sandbox.exec(
        ['sh', '-c', `kill -${signal} -"$1" 2>/dev/null; exit 0`, 'sandpit-stop', String(p.pid)],
        { workingDir: WORKSPACE_DIR, timeoutMs: 10_000 },
      );
    } catch (error) {
      this.log.warn('could not signal a process', { processId: p.info.id, error: toErrorBody(error).message });
    }
  }

  private waitEnd(p: Running, timeoutMs: number): Promise<boolean> {
    if (p.ended) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      p.endWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  private endNow(
    p: Running,
    state: Exclude<ProcessState, 'running'>,
    exitCode: number | undefined,
    stoppedBy: string | undefined,
  ): void {
    if (p.ended) return;
    p.ended = true;
    p.info = {
      ...p.info,
      state,
      endedAt: new Date().toISOString(),
      ...(exitCode === undefined || exitCode < 0 ? {} : { exitCode }),
      ...(stoppedBy ? { stoppedBy } : {}),
    };
    for (const wake of p.endWaiters.splice(0)) wake();
    const view = this.view(p);
    const tail = p.ring.lastLines(20).join('\n');
    for (const listener of p.onEnd.splice(0)) {
      try {
        listener(view, tail);
      } catch (error) {
        this.log.error('a process end listener failed', { processId: p.info.id, error: toErrorBody(error).message });
      }
    }
    this.announce(p);
    this.log.info('a long-running process ended', {
      sessionId: p.info.sessionId,
      processId: p.info.id,
      state,
      exitCode,
      stoppedBy,
    });
  }

  private announce(p: Running): void {
    if (!p.hidden) this.bus.emit('process.updated', this.view(p));
  }

  private view(p: Running): ProcessInfo {
    return { ...p.info, outputBytes: p.ring.end, lastLines: p.ring.lastLines(5) };
  }

  private forgetOld(sessionId: string): void {
    const ended = [...this.all.values()].filter((p) => p.info.sessionId === sessionId && p.ended);
    for (const p of ended.slice(0, Math.max(0, ended.length - KEEP_ENDED))) this.all.delete(p.info.id);
  }
}
