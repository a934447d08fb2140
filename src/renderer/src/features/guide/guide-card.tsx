import type { ReactElement } from 'react';
import { useAppStore } from '../../stores/panel-context';
import { guideShown } from './guide-store';
import { GuideSteps } from './guide-steps';

/** The first-run guide at the top of Sessions, until an assistant has run code (or the person hides it). */
export function GuideCard(): ReactElement | null {
  const shown = useAppStore('guide', guideShown);
  const dismiss = useAppStore('guide', (s) => s.dismiss);
  const finishedHere = useAppStore('guide', (s) => s.finishedHere);
  const acknowledge = useAppStore('guide', (s) => s.acknowledge);
  if (finishedHere) {
    return (
      <div className="notice notice-ok" role="status" data-testid="guide-finished">
        <p>
          <strong>You are all set.</strong> Your assistant just ran its first code in Sandpit: its session is below, and
          the run is recorded in Activity.
        </p>
        <button type="button" className="secondary small" onClick={acknowledge}>
          OK
        </button>
      </div>
    );
  }
  if (!shown) return null;
  return (
    <section className="card guide" aria-labelledby="guide-title" data-testid="guide">
      <div className="row">
        <h2 id="guide-title">Get started in three steps</h2>
        <button type="button" className="secondary small" onClick={dismiss} data-testid="guide-dismiss">
          Hide this guide
        </button>
      </div>
      <p className="muted">
        Sandpit lets your AI assistant run code in a safe sandbox on this computer. Connect it once; after that,
        everything it runs shows up here.
      </p>
      <GuideSteps />
      <p className="muted small">You can open this guide again from Sessions or Connect (“Getting started”).</p>
    </section>
  );
}
