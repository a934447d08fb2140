import { useEffect, useState } from 'react';
import type { ReactElement } from 'react';
import type { AuditEntry } from '../../../../shared/domain/audit';
import { compareRuns } from '../../../../shared/replay-compare';
import { useClient } from '../../stores/panel-context';
import { plainError } from '../../stores/panel-store';
import { RunDiff } from './run-diff';

/**
 * A replayed row against the row it repeats, worked out again from the two audit rows (so it holds after a reload
 * and for any replay ever made): "Same output as row N", or what differs with a line diff.
 */
export function ReplayComparison({ replay }: { replay: AuditEntry }): ReactElement | null {
  const client = useClient();
  const [original, setOriginal] = useState<AuditEntry | { problem: string } | undefined>();
  useEffect(() => {
    let live = true;
    if (replay.replayOf === undefined) return undefined;
    client.call('audit.get', { id: replay.replayOf }).then(
      (entry) => {
        if (live) setOriginal(entry);
      },
      (error: unknown) => {
        if (live) setOriginal({ problem: plainError(error) });
      },
    );
    return () => {
      live = false;
    };
  }, [client, replay.replayOf]);

  if (replay.replayOf === undefined || original === undefined) return null;
  if ('problem' in original) return <p className="field-error small">The original row could not be read: {original.problem}</p>;
  if (replay.status === 'running') return null;
  const compared = compareRuns(original, replay);
  return (
    <div data-testid="activity-detail-comparison" data-outcome={compared.outcome}>
      <p className={compared.outcome === 'matched' ? 'tone-ok' : 'tone-bad'}>
        <strong>{compared.outcome === 'matched' ? `Same output as row ${original.id}` : `Differs from row ${original.id}`}</strong>
      </p>
      <RunDiff run={compared} />
    </div>
  );
}
