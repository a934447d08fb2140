import type { ReplayOutcome, ReplayView } from '../../../../shared/domain/replay';

export const OUTCOME_WORDS: Record<ReplayOutcome, string> = {
  pending: 'Waiting',
  running: 'Running…',
  matched: 'Same output',
  differs: 'Output differs',
  failed: 'Could not run',
  skipped: 'Skipped',
};

export const OUTCOME_TONE: Record<ReplayOutcome, 'ok' | 'bad' | 'wait'> = {
  pending: 'wait',
  running: 'wait',
  matched: 'ok',
  differs: 'bad',
  failed: 'bad',
  skipped: 'wait',
};

export const PART_WORDS: Record<string, string> = {
  status: 'How it ended',
  stdout: 'Output',
  stderr: 'Error output',
  result: 'Value of the last line',
  error: 'Error',
};

/** One line on the whole replay: where it is, and how many runs matched. */
export function replaySummary(view: ReplayView): string {
  const count = (outcome: ReplayOutcome): number => view.runs.filter((r) => r.outcome === outcome).length;
  const done = `${count('matched')} same, ${count('differs')} different, ${count('failed')} could not run${count('skipped') ? `, ${count('skipped')} skipped` : ''}`;
  if (view.state === 'starting') return 'Starting a fresh sandbox with the recorded environment…';
  if (view.state === 'running') return `Replaying run ${Math.min(view.runs.length, view.runs.filter((r) => r.outcome !== 'pending').length)} of ${view.runs.length} · ${done}`;
  if (view.state === 'failed') return `The replay stopped: ${view.message ?? 'it could not go on'}`;
  return `Replay finished · ${done}`;
}
