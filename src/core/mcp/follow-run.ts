import { toErrorBody } from '../../shared/api/errors';
import type { EventBus } from '../events/event-bus';
import type { Logger } from '../log';
import { newId } from '../util/ids';
import type { ToolExtra } from './tool-extra';
import { startProgress } from './progress-ticker';
import type { ToolKit } from './tool-kit';

/** Output kept to find the newest line for progress messages. */
export const TAIL_CHARS = 4_096;
const MAX_MESSAGE_CHARS = 200;

export interface FollowRunOptions {
  bus: EventBus;
  /** The id the run was started with (the caller chose it, so events can be matched before the call returns). */
  executionId: string;
  extra: ToolExtra;
  /** Interrupts the run in `sessionId` (the API's sessions.interrupt). */
  interrupt(sessionId: string): Promise<void>;
  log: Logger;
  intervalMs?: number;
}

export interface RunFollower {
  /** Stops following; call when the run is over (always). */
  stop(): void;
}

/** The newest non-empty line of some output, shortened for a progress message. */
export function newestLine(tail: string): string | undefined {
  const lines = tail.split(/\r?\n|\r/);
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const line = lines[i]?.trim();
    if (line) return line.length > MAX_MESSAGE_CHARS ? `${line.slice(0, MAX_MESSAGE_CHARS - 1)}…` : line;
  }
  return undefined;
}

/**
 * Follows one run on the bus while its tool call is in flight:
 * - with a progress token, reports progress every second, the message being the newest output line;
 * - when the client cancels the request (`notifications/cancelled` → extra.signal), interrupts the run — also if it
 *   was still queued (then as soon as it starts). The session and its variables stay.
 */
export function followRun(options: FollowRunOptions): RunFollower {
  const { bus, executionId, extra, log } = options;
  const startedAt = Date.now();
  let sessionId: string | undefined;
  let running = false;
  let done = false;
  let cancelled = false;
  let tail = '';

  const interrupt = (): void => {
    if (!sessionId || !running || done) return;
    const target = sessionId;
    log.info('request cancelled; interrupting the run', { sessionId: target, executionId });
    options
      .interrupt(target)
      .catch((error: unknown) =>
        log.warn('could not interrupt the cancelled run', {
          sessionId: target,
          executionId,
          error: toErrorBody(error).message,
        }),
      );
  };
  const unsubscribe = [
    bus.on('execution.started', (event) => {
      if (event.executionId !== executionId) return;
      sessionId = event.sessionId;
      running = true;
      if (cancelled) interrupt();
    }),
    bus.on('execution.output', (event) => {
      if (event.executionId === executionId) tail = (tail + event.text).slice(-TAIL_CHARS);
    }),
    bus.on('execution.done', (event) => {
      if (event.executionId === executionId) done = true;
    }),
  ];
  const onAbort = (): void => {
    cancelled = true;
    interrupt();
  };
  extra.signal.addEventListener('abort', onAbort, { once: true });
  const message = (): string => {
    const seconds = Math.round((Date.now() - startedAt) / 1000);
    return newestLine(tail) ?? (running ? `running for ${seconds} s, no output yet` : 'waiting for the session');
  };
  const ticker = startProgress(extra, message, log, options.intervalMs);

  return {
    stop: () => {
      ticker.stop();
      for (const off of unsubscribe) off();
      extra.signal.removeEventListener('abort', onAbort);
    },
  };
}

/** Runs `start` with a fresh execution id, followed (progress, cancel) until it settles. */
export async function runFollowed<T>(
  kit: ToolKit,
  extra: ToolExtra,
  start: (executionId: string) => Promise<T>,
): Promise<T> {
  const executionId = newId('run', 8);
  const follower = followRun({
    bus: kit.sandpit.bus,
    executionId,
    extra,
    log: kit.log,
    interrupt: async (sessionId) => {
      await kit.call('sessions.interrupt', { sessionId });
    },
  });
  try {
    return await start(executionId);
  } finally {
    follower.stop();
  }
}
