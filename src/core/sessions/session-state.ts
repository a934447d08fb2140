import { SandpitError } from '../../shared/api/errors';
import type { SessionState } from '../../shared/domain/session';

/**
 * Every state change a session may make, and nothing else: each change is checked against this table.
 *
 *   starting ─→ ready ⇄ busy          (a run, a command, an install, a write)
 *   ready/busy ─→ restarting ─→ ready  (a restart, or the sandbox died and is started again)
 *   any of those ─→ failed             (the sandbox could not be (re)started; only a restart or a stop helps)
 *   failed ─→ restarting
 *   ready/failed ─→ paused ─→ restarting ─→ ready   (container stopped, files and packages kept; resumed on first use)
 *   paused is also where a kept session starts after Sandpit restarted
 *   any but stopped ─→ stopping ─→ stopped
 */
export const SESSION_TRANSITIONS: { readonly [S in SessionState]: readonly SessionState[] } = {
  starting: ['ready', 'failed', 'stopping'],
  ready: ['busy', 'restarting', 'paused', 'failed', 'stopping'],
  busy: ['ready', 'restarting', 'failed', 'stopping'],
  restarting: ['ready', 'failed', 'stopping'],
  paused: ['restarting', 'stopping'],
  failed: ['restarting', 'paused', 'stopping'],
  stopping: ['stopped'],
  stopped: [],
};

export function canTransition(from: SessionState, to: SessionState): boolean {
  return SESSION_TRANSITIONS[from].includes(to);
}

/** Throws INTERNAL for a change the table does not allow (a bug, never a user error). */
export function assertTransition(sessionId: string, from: SessionState, to: SessionState): void {
  if (!canTransition(from, to)) {
    throw new SandpitError('INTERNAL', `Session ${sessionId} cannot go from "${from}" to "${to}".`);
  }
}
