import { useEffect } from 'react';
import type { ReactElement } from 'react';
import { ISOLATION_LEVELS } from '../../../../shared/domain/isolation';
import { ISOLATION_EXPLAINED } from '../../lib/isolation-words';
import { useAppStore, usePanel } from '../../stores/panel-context';
import { NETWORK_SHORT } from '../sessions/session-words';
import type { SettingsDraft } from './settings-draft';
import { FieldError, SettingsSection } from './settings-section';

/** How strongly new sessions are kept from the computer, unless their environment chooses. */
export function IsolationSection({ draft }: { draft: SettingsDraft }): ReactElement {
  const edit = useAppStore('settings', (s) => s.edit);
  const error = useAppStore('settings', (s) => s.errors.isolation);
  const runtimes = usePanel((s) => s.engine?.runtimes);
  const gvisor = runtimes?.some((r) => r.startsWith('runsc'));
  const envStatus = useAppStore('environments', (s) => s.status);
  const loadEnvironments = useAppStore('environments', (s) => s.load);
  const environments = useAppStore('environments', (s) => s.environments);
  useEffect(() => {
    if (envStatus === 'idle') void loadEnvironments();
  }, [envStatus, loadEnvironments]);
  // Environments that follow this setting and have network access: gVisor must give them a network to start.
  const networked = environments.filter((e) => e.isolation === undefined && e.network !== 'none');
  const gvisorNetworked = runtimes?.includes('runsc');
  return (
    <SettingsSection
      title="Isolation"
      testId="settings-isolation"
      intro="How strongly sessions are kept apart from this computer. Environments can choose their own; this is for the others."
    >
      <fieldset className="choices">
        <legend className="label">Sessions run with</legend>
        {ISOLATION_LEVELS.map((level) => (
          <label key={level} className="choice choice-block">
            <input
              type="radio"
              name="settings-isolation"
              checked={draft.isolation === level}
              onChange={() => edit({ isolation: level })}
              data-testid={`settings-isolation-${level}`}
            />
            <span>
              <strong>{ISOLATION_EXPLAINED[level].title}</strong>
              {level === 'standard' ? <span className="badge">Default</span> : null}
              <span className="muted small block">{ISOLATION_EXPLAINED[level].explain}</span>
              {level === 'strong' && runtimes && !gvisor ? (
                <span className="small block warn-text">This Docker engine does not have gVisor: sessions with strong isolation would not start.</span>
              ) : null}
            </span>
          </label>
        ))}
      </fieldset>
      {draft.isolation === 'strong' && networked.length > 0 ? (
        <div className="notice notice-wait" role="status" data-testid="settings-isolation-network-warning">
          <p>
            {networked.length === 1 ? 'This environment has' : 'These environments have'} network access and{' '}
            {networked.length === 1 ? 'follows' : 'follow'} this setting:{' '}
            {networked.map((e, i) => (
              <span key={e.id} data-testid="settings-isolation-network-env">
                {i > 0 ? ', ' : ''}
                <strong>{e.name}</strong> ({NETWORK_SHORT[e.network]})
              </span>
            ))}
            .{' '}
            {gvisorNetworked === false
              ? 'This Docker engine has no gVisor that can give a session network access, so their sessions will not start with Strong isolation.'
              : 'With Strong isolation their sessions start only if gVisor can give a session network access on this Docker engine; where it cannot, such a session does not start and says why.'}{' '}
            Give {networked.length === 1 ? 'it' : 'them'} Standard isolation in {networked.length === 1 ? 'its' : 'their'} form (Environments → Edit →
            Isolation) to keep {networked.length === 1 ? 'it' : 'them'} working.
          </p>
        </div>
      ) : null}
      <FieldError id="settings-isolation" error={error} />
    </SettingsSection>
  );
}
