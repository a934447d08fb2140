import type { ReactElement } from 'react';
import { usePanel } from '../../stores/panel-context';

/** While Sandpit does not answer: says so above every screen (what it shows may be out of date). */
export function LinkBanner(): ReactElement | null {
  const lost = usePanel((s) => s.link === 'lost');
  if (!lost) return null;
  return (
    <div className="notice notice-wait" role="status" data-testid="link-lost">
      <p>
        <strong>Lost the connection to Sandpit — reconnecting…</strong> Sandpit may have stopped or be starting again. What
        you see here may be out of date until it answers; this page catches up by itself.
      </p>
    </div>
  );
}
