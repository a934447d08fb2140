import type { Logger } from '../core/log';
import { withTimeout } from '../core/util/with-timeout';

/** One thing to stop before the core is disposed (IPC, the tray, the HTTP server, MCP sessions). */
export interface StopStep {
  what: string;
  stop(): void | Promise<void>;
}

export interface ShutdownTimeouts {
  /** Each stop step. */
  stepMs: number;
  /** Disposing the core (sessions, containers, the audit log). */
  disposeMs: number;
}

export const SHUTDOWN_TIMEOUTS: ShutdownTimeouts = { stepMs: 5_000, disposeMs: 20_000 };

/**
 * Stops the front doors one after the other — each awaited, bounded and caught, so a failing or hanging
 * one never keeps the others or the core from stopping — and only then disposes the core, so nothing
 * reaches it while it tears down. Never throws.
 */
export async function stopThenDispose(steps: StopStep[], dispose: () => Promise<void>, log: Logger, timeouts: ShutdownTimeouts = SHUTDOWN_TIMEOUTS): Promise<void> {
  for (const step of steps) {
    try {
      await withTimeout(Promise.resolve().then(() => step.stop()), timeouts.stepMs, `stopping ${step.what}`);
    } catch (error) {
      log.warn(`failed to stop ${step.what}`, { error: error instanceof Error ? error.message : String(error) });
    }
  }
  try {
    await withTimeout(dispose(), timeouts.disposeMs, 'shutting Sandpit down');
  } catch (error) {
    log.error('failed to shut down cleanly', { error: error instanceof Error ? error.message : String(error) });
  }
}
