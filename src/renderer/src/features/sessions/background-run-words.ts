import type { BackgroundRun } from '../../../../shared/domain/background-run';

const KIND_WORDS: Record<BackgroundRun['kind'], string> = { code: 'Code', command: 'Command', file: 'File' };

const STATUS_WORDS: Record<string, string> = {
  ok: 'Finished',
  error: 'Finished with an error',
  timeout: 'Stopped at its time limit',
  interrupted: 'Cancelled',
  oom: 'Ran out of memory',
  killed: 'Stopped with its session',
};

/** What the person reads about a background run's state, in plain words. */
export function backgroundRunState(run: BackgroundRun, now: number): string {
  if (run.state === 'failed') return `Could not run: ${run.error?.message ?? 'unknown reason'}`;
  if (run.state === 'done') return STATUS_WORDS[run.status ?? 'ok'] ?? `Ended (${run.status ?? 'unknown'})`;
  if (run.cancelRequested) return 'Cancelling…';
  if (run.state === 'queued') return `Waiting${run.waiting ? ` — ${run.waiting}` : ''}`;
  const seconds = run.startedAt ? Math.max(0, Math.round((now - Date.parse(run.startedAt)) / 1000)) : 0;
  return `Running for ${seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`}`;
}

/** "Code", "Command", "File": what kind of run it is. */
export function backgroundRunKind(run: BackgroundRun): string {
  return KIND_WORDS[run.kind];
}

export function isBackgroundRunOver(run: BackgroundRun): boolean {
  return run.state === 'done' || run.state === 'failed';
}
