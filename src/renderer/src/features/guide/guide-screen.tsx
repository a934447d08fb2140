import { useEffect } from 'react';
import type { ReactElement } from 'react';
import { useAppStore, usePanel } from '../../stores/panel-context';
import { GuideSteps } from './guide-steps';

/** The guide as its own screen (#/getting-started), reopened from Sessions or Connect. */
export function GuideScreen(): ReactElement {
  const ran = useAppStore('guide', (s) => s.ran);
  const reopen = useAppStore('guide', (s) => s.reopen);
  const navigate = usePanel((s) => s.navigate);
  useEffect(() => {
    reopen();
  }, [reopen]);
  return (
    <section data-testid="guide-screen" aria-labelledby="guide-screen-title">
      <div className="screen-head">
        <div>
          <h1 id="guide-screen-title" tabIndex={-1}>
            Getting started
          </h1>
          <p className="muted">Sandpit lets your AI assistant run code in a safe sandbox on this computer.</p>
        </div>
        <button
          type="button"
          className="secondary"
          onClick={() => navigate('sessions')}
          data-testid="guide-screen-done"
        >
          Go to Sessions
        </button>
      </div>
      {ran ? (
        <p className="notice notice-ok" role="status" data-testid="guide-all-set">
          All set: your assistant has run code in Sandpit. The steps are here for when you set up another app.
        </p>
      ) : null}
      <section className="card">
        <GuideSteps />
      </section>
    </section>
  );
}
