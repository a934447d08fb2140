/** Why a session was paused: its idle time ran out, or Sandpit quit while it was kept. */
export type PauseReason = 'idle' | 'quit';

/** The first result after a resume says what was kept and what was not. */
export function resumeNotice(reason: PauseReason, idleTtlMs: number): string {
  const gone = 'files and installed packages are here, variables from earlier runs are not';
  const rebuild = 're-run your code to rebuild them, or fork the session with replay: true, which runs its earlier successful runs again in the fork';
  if (reason === 'quit') return `This session was resumed after Sandpit restarted: ${gone} — ${rebuild}.`;
  const minutes = Math.max(1, Math.round(idleTtlMs / 60_000));
  return `This session was paused after ${minutes} minute${minutes === 1 ? '' : 's'} without use, to free its memory, and has been resumed: ${gone} (memory cannot be saved on this machine) — ${rebuild}.`;
}
