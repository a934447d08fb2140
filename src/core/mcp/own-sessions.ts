import type { BackgroundRun } from '../../shared/domain/background-run';
import { call } from '../api/dispatcher';
import type { CallContext, Handlers } from '../api/api-types';

/** How long one check of a background run waits for its end (the API allows a minute at most). */
const WAIT_PER_CHECK_MS = 50_000;
/** The longest a session is watched for its runs' end: longer than any run may take (a day, at most, in Settings). */
const WATCH_AT_MOST_MS = 25 * 3_600_000;

const unfinished = (run: BackgroundRun): boolean => run.state === 'queued' || run.state === 'running';

export interface StoppedSessions {
  /** How many sessions were stopped at once. */
  stopped: number;
  /**
   * Resolves, once the background runs that held sessions have ended, with how many of those sessions were then
   * stopped; undefined when no run held one.
   */
  afterRuns?: Promise<number>;
}

/**
 * Stops the sessions a client made (when its MCP session ends), through the API like any other call.
 * Sessions made in the panel, which every client may use, stay, and so do kept ones (they were asked to
 * outlive Sandpit itself). A session a background run of the client still runs in (or is about to) stays while
 * the run does — the run outlives its client (issue 23) — and is stopped as soon as its runs are over, unless work the
 * person queued on it in the panel runs or waits (then it stops after its idle time, as any session): no assistant can
 * use it any more (it was that MCP session's), and the run's result stays with get_run, its files as artifacts.
 */
export async function stopOwnSessions(api: Handlers, context: CallContext): Promise<StoppedSessions> {
  const { sessions } = await call(api, 'sessions.list', {}, context);
  const { runs } = await call(api, 'runs.list', {}, context);
  const running = runs.filter(unfinished);
  const held = new Set(running.flatMap((r) => (r.sessionId ? [r.sessionId] : [])));
  const own = sessions.filter((s) => !s.shared && !s.kept && !held.has(s.id));
  await Promise.all(own.map((s) => call(api, 'sessions.stop', { sessionId: s.id }, context).catch(() => undefined)));
  return running.length === 0 ? { stopped: own.length } : { stopped: own.length, afterRuns: stopAfterRuns(api, context, running) };
}

/** Waits for each run to end, then stops the session it ran in unless another unfinished run still holds it. */
async function stopAfterRuns(api: Handlers, context: CallContext, runs: BackgroundRun[]): Promise<number> {
  const deadline = Date.now() + WATCH_AT_MOST_MS;
  const stopped = await Promise.all(runs.map((run) => ended(api, context, run, deadline).then((last) => (last?.sessionId ? stopIfFree(api, context, last.sessionId) : false))));
  return stopped.filter(Boolean).length;
}

/** The run once it has ended (undefined when it is no longer there, or the watch ran out of time). */
async function ended(api: Handlers, context: CallContext, run: BackgroundRun, deadline: number): Promise<BackgroundRun | undefined> {
  let cursor = 0;
  while (Date.now() < deadline) {
    const answer = await call(api, 'runs.get', { runId: run.runId, since: cursor, waitMs: Math.min(WAIT_PER_CHECK_MS, Math.max(0, deadline - Date.now())), maxChars: 1 }, context).catch(() => undefined);
    if (!answer) return undefined;
    if (!unfinished(answer.run)) return answer.run;
    // Past everything printed so far: the next wait ends on new output or on the end.
    cursor = Math.max(cursor, answer.run.outputChars);
  }
  return undefined;
}

async function stopIfFree(api: Handlers, context: CallContext, sessionId: string): Promise<boolean> {
  const { runs } = await call(api, 'runs.list', { sessionId }, context);
  if (runs.some(unfinished)) return false;
  const { sessions } = await call(api, 'sessions.list', {}, context);
  const session = sessions.find((s) => s.id === sessionId);
  if (!session || session.shared || session.kept) return false;
  // Only if idle: the person may have queued work on it in the panel (then it stops after its idle time, as any session).
  return call(api, 'sessions.stop', { sessionId, ifIdle: true }, context).then(
    (answer) => answer.stopped,
    () => false,
  );
}
