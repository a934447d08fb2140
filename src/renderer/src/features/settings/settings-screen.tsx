import { useEffect } from 'react';
import type { ReactElement } from 'react';
import { LoadProblem, NotAvailable } from '../../components/empty-state';
import { useAppStore } from '../../stores/panel-context';
import { AppearanceSection } from './appearance-section';
import { ApprovalsSection } from './approvals-section';
import { DockerSection } from './docker-section';
import { EgressSection } from './egress-section';
import { IdleSection } from './idle-section';
import { FoldersSection } from './folders-section';
import { IsolationSection } from './isolation-section';
import { LimitsSection } from './limits-section';
import { SaveBar } from './save-bar';
import { SystemSection } from './system-section';
import { SecretsSection } from './secrets-section';

/** Settings: limits, isolation, approvals, package downloads, Docker, appearance, system — one Save for all. */
export function SettingsScreen(): ReactElement {
  const status = useAppStore('settings', (s) => s.status);
  const problem = useAppStore('settings', (s) => s.problem);
  const view = useAppStore('settings', (s) => s.view);
  const draft = useAppStore('settings', (s) => s.draft);
  const load = useAppStore('settings', (s) => s.load);
  const loadConnect = useAppStore('connect', (s) => s.load);

  useEffect(() => {
    void load();
    void loadConnect();
  }, [load, loadConnect]);

  if (status === 'unavailable') {
    return (
      <section data-testid="settings-screen">
        <h1 tabIndex={-1}>Settings</h1>
        <NotAvailable testId="settings-unavailable" what="settings" />
      </section>
    );
  }

  return (
    <section data-testid="settings-screen" aria-labelledby="settings-title" className="settings-screen">
      <div className="screen-head">
        <div>
          <h1 id="settings-title" tabIndex={-1}>
            Settings
          </h1>
          <p className="muted">Change what you need, then press “Save changes” at the bottom. Nothing changes until you save.</p>
        </div>
      </div>
      {status === 'error' && problem ? <LoadProblem testId="settings-problem" message={problem} retry={() => void load()} /> : null}
      {status === 'loading' ? <p className="muted">Loading settings…</p> : null}
      {view && draft ? (
        <>
          <LimitsSection draft={draft} />
          <IsolationSection draft={draft} />
          <IdleSection draft={draft} />
          <ApprovalsSection draft={draft} />
          <FoldersSection draft={draft} />
          <EgressSection draft={draft} />
          <SecretsSection />
          <DockerSection draft={draft} />
          <AppearanceSection draft={draft} />
          <SystemSection draft={draft} view={view} />
        </>
      ) : null}
      <SaveBar />
    </section>
  );
}
