import { toErrorBody } from '../../shared/api/errors';
import type { Logger } from '../log';
import type { ToolExtra } from './tool-extra';
import { onProgressChange, waitingFor } from './request-waiting';

/** How often a long call reports progress (a client's request timeout can reset on each). */
export const PROGRESS_INTERVAL_MS = 1_000;

export interface ProgressTicker {
  stop(): void;
}

/**
 * While a tool call is in flight, and only when the request carries a progress token: sends
 * `notifications/progress` every interval with an increasing count and `message()` (e.g. the newest
 * output line) — or, while the call waits for something (the person's approval), what it waits for.
 * A change of what it waits for or does is sent at once. Does nothing without a token. Always call stop().
 */
export function startProgress(
  extra: ToolExtra,
  message: () => string,
  log: Logger,
  intervalMs = PROGRESS_INTERVAL_MS,
): ProgressTicker {
  const progressToken = extra._meta?.progressToken;
  if (progressToken === undefined) return { stop: () => undefined };
  let count = 0;
  const send = (): void => {
    if (extra.signal.aborted) return;
    count += 1;
    extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken, progress: count, message: waitingFor(extra) ?? message() },
      })
      .catch((error: unknown) => log.debug('could not send progress', { error: toErrorBody(error).message }));
  };
  const timer = setInterval(send, intervalMs);
  timer.unref();
  // What the call waits for or does (an approval, a build) is told at once, not at the next tick.
  onProgressChange(extra, send);
  return {
    stop: () => {
      clearInterval(timer);
      onProgressChange(extra, undefined);
    },
  };
}

/** Runs `work` with progress ticking (a fixed message plus the seconds so far). */
export async function withProgress<T>(extra: ToolExtra, what: string, log: Logger, work: () => Promise<T>): Promise<T> {
  const startedAt = Date.now();
  const ticker = startProgress(extra, () => `${what} (${Math.round((Date.now() - startedAt) / 1000)} s)`, log);
  try {
    return await work();
  } finally {
    ticker.stop();
  }
}
