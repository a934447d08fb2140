import { useEffect } from 'react';
import type { ReactElement } from 'react';
import { LoadProblem, NotAvailable } from '../../components/empty-state';
import { useAppStore } from '../../stores/panel-context';
import { ApprovalsSection } from './approvals-section';
import { EgressSection } from './egress-section';
import { LimitsSection } from './limits-section';
import { SystemSection } from './system-section';

const RESTART_WORDS: Record<string, string> = { dockerHost: 'the Docker address', port: 'the port' };

/** Settings: limits, warm pool, approvals, package downloads, Docker, data folder, log retention. */
export function SettingsScreen(): ReactElement {
  const status = useAppStore('settings', (s) => s.status);
  const problem = useAppStore('settings', (s) => s.problem);
  const view = useAppStore('settings', (s) => s.view);
  const load = useAppStore('settings', (s) => s.load);
  const loadConnect = useAppStore('connect', (s) => s.load);

  useEffect(() => {
    void load();
    void loadConnect();
  }, [load, loadConnect]);

  if (status === 'unavailable') {
    return (
      <section data-testid="settings-screen">
        <h1>Settings</h1>
        <NotAvailable testId="settings-unavailable" what="settings" />
      </section>
    );
  }

  return (
    <section data-testid="settings-screen" aria-labelledby="settings-title">
      <div className="screen-head">
        <div>
          <h1 id="settings-title">Settings</h1>
          <p className="muted">Changes apply at once, except where it says otherwise.</p>
        </div>
      </div>
      {status === 'error' && problem ? (
        <LoadProblem testId="settings-problem" message={problem} retry={() => void load()} />
      ) : null}
      {status === 'loading' ? <p className="muted">Loading settings…</p> : null}
      {view && view.restartNeeded.length > 0 ? (
        <p className="notice notice-info" role="status" data-testid="settings-restart-needed">
          Restart Sandpit to use the new {view.restartNeeded.map((k) => RESTART_WORDS[k] ?? k).join(' and ')}.
        </p>
      ) : null}
      {view ? (
        <>
          <LimitsSection view={view} />
          <ApprovalsSection view={view} />
          <EgressSection view={view} />
          <SystemSection view={view} />
        </>
      ) : null}
    </section>
  );
}
