import type { AuditEntry } from './domain/audit';
import type { ReplayRun } from './domain/replay';
import { lineDiff } from './line-diff';

type Compared = Pick<ReplayRun, 'outcome' | 'diffs'>;

/** The part of a row's error a replay compares: the run's own error (not a call's failure, which is `failed`). */
function errorText(entry: AuditEntry): string {
  return entry.status === 'ok' ? '' : (entry.errorMessage ?? '');
}

/**
 * The replayed row against the original: `matched` when the status, stdout, stderr, the last expression's value
 * and the error are exactly the same, else `differs` with a line diff of each part that is not. Nothing is
 * normalized: a time or a random number printed differs, and is shown as such.
 */
export function compareRuns(original: AuditEntry, replay: AuditEntry): Compared {
  const parts: Array<[ReplayRun['diffs'][number]['part'], string, string]> = [
    ['status', original.status, replay.status],
    ['stdout', original.stdout, replay.stdout],
    ['stderr', original.stderr, replay.stderr],
    ['result', original.result ?? '', replay.result ?? ''],
    ['error', errorText(original), errorText(replay)],
  ];
  const diffs = parts.filter(([, before, after]) => before !== after).map(([part, before, after]) => ({ part, lines: lineDiff(before, after) }));
  return { outcome: diffs.length === 0 ? 'matched' : 'differs', diffs };
}
