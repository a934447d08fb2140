import { useEffect } from 'react';
import type { ReactElement } from 'react';
import { plural } from '../../lib/format';
import { useAppStore } from '../../stores/panel-context';

/** Whether the log's hash chain holds: "Log intact", or which row is broken and why. */
export function ChainStatus({ onOpenRow }: { onOpenRow: (id: number) => void }): ReactElement {
  const verify = useAppStore('activity', (s) => s.verify);
  const verifying = useAppStore('activity', (s) => s.verifying);
  const check = useAppStore('activity', (s) => s.check);
  const listed = useAppStore('activity', (s) => s.status === 'ready' || s.status === 'error');
  // The check walks the whole log on the server: start it once the rows are in, so they are not kept waiting.
  useEffect(() => {
    if (listed) void check();
  }, [check, listed]);

  let text: ReactElement;
  let state: string;
  if (!verify) {
    state = 'checking';
    text = <span>Checking the log…</span>;
  } else if ('error' in verify) {
    state = 'error';
    text = <span>Could not check the log: {verify.error}</span>;
  } else if (verify.ok) {
    state = 'intact';
    text = (
      <span>
        <strong>Log intact</strong> — {plural(verify.rows, 'row')} checked, nothing was changed or removed
        {verify.pruned ? ` (${plural(verify.pruned, 'older row')} removed by the retention setting)` : ''}.
      </span>
    );
  } else {
    state = 'broken';
    text = (
      <span>
        <strong>Log broken{verify.brokenAt !== undefined ? ` at row ${verify.brokenAt}` : ''}</strong> —{' '}
        {verify.reason ?? 'a row was changed or removed after it was written.'}
        {verify.brokenAt !== undefined ? (
          <>
            {' '}
            <button type="button" className="link-button" onClick={() => onOpenRow(verify.brokenAt!)} data-testid="chain-open-row">
              Show row {verify.brokenAt}
            </button>{' '}
            <span className="muted small">(marked in the list below, in the Row column)</span>
          </>
        ) : null}
      </span>
    );
  }
  return (
    <div className={`chain chain-${state}`} data-testid="chain-status" data-state={state} role="status">
      <span
        className={`dot ${state === 'intact' ? 'dot-up' : state === 'checking' ? 'dot-wait' : 'dot-down'}`}
        aria-hidden="true"
      />
      {text}
      <button
        type="button"
        className="secondary small"
        onClick={() => void check()}
        disabled={verifying}
        data-testid="chain-check"
      >
        {verifying ? 'Checking…' : 'Check again'}
      </button>
    </div>
  );
}
