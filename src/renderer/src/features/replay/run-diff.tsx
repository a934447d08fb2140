import type { ReactElement } from 'react';
import type { ReplayRun } from '../../../../shared/domain/replay';
import { PART_WORDS } from './replay-words';

/** What differs between a run and its replay: a line diff per part (− the original, + the replay). */
export function RunDiff({ run }: { run: Pick<ReplayRun, 'diffs'> }): ReactElement | null {
  if (run.diffs.length === 0) return null;
  return (
    <div className="replay-diffs" data-testid="replay-diff">
      {run.diffs.map((diff) => (
        <div key={diff.part}>
          <p className="muted small">
            {PART_WORDS[diff.part] ?? diff.part}: <span className="diff-removed">− the original</span> · <span className="diff-added">+ the replay</span>
          </p>
          <pre className="diff">
            {diff.lines.map((line, index) => (
              <span key={index} className={`diff-${line.op}`} data-op={line.op}>
                {line.op === 'same' ? '  ' : line.op === 'removed' ? '− ' : '+ '}
                {line.text}
                {'\n'}
              </span>
            ))}
          </pre>
        </div>
      ))}
    </div>
  );
}
