import { useState } from 'react';
import type { ReactElement } from 'react';
import { useAppStore, usePanel } from '../../stores/panel-context';
import { useEngineCandidates } from '../engine/engine-candidates';
import type { SettingsDraft } from './settings-draft';
import { FieldError, SettingsSection } from './settings-section';

/** Where Docker is: found by itself (recommended), one of the engines this computer points at, or another address. */
export function DockerSection({ draft }: { draft: SettingsDraft }): ReactElement {
  const edit = useAppStore('settings', (s) => s.edit);
  const error = useAppStore('settings', (s) => s.errors.dockerHost);
  const engine = usePanel((s) => s.engine);
  const { engines, problem, looking, refresh } = useEngineCandidates();
  const listed = (engines ?? []).filter((e, i, all) => all.findIndex((x) => x.host === e.host) === i);
  const isListed = listed.some((e) => e.host === draft.dockerHost);
  const [other, setOther] = useState(draft.dockerHost !== '' && engines !== undefined && !isListed);
  const mode = draft.dockerHost === '' && !other ? 'auto' : isListed && !other ? draft.dockerHost : 'other';

  return (
    <SettingsSection
      title="Docker"
      testId="settings-docker"
      intro="Sandpit runs every sandbox in Docker. It usually finds Docker by itself; pick another engine only if you use more than one."
    >
      {engine ? (
        <p className="small" data-testid="settings-docker-in-use">
          {engine.state === 'up' ? 'In use now: ' : 'Not answering now: '}
          <code>{engine.endpoint}</code>
          {engine.source ? <span className="muted"> (found through {engine.source})</span> : null}
        </p>
      ) : null}
      <fieldset className="choices" aria-describedby={error ? 'settings-docker-host-error' : undefined}>
        <legend className="label">Docker address</legend>
        <label className="choice choice-block">
          <input
            type="radio"
            name="settings-docker"
            checked={mode === 'auto'}
            onChange={() => {
              setOther(false);
              edit({ dockerHost: '' });
            }}
            data-testid="settings-docker-auto"
          />
          <span>
            <strong>Find Docker by itself</strong> <span className="badge">Recommended</span>
            <span className="muted small block">The way the docker command does: DOCKER_HOST, the current docker context, then the usual places.</span>
          </span>
        </label>
        {listed.map((candidate) => (
          <label
            key={candidate.host}
            className="choice choice-block"
            data-testid="settings-docker-candidate"
            data-host={candidate.host}
            data-reachable={candidate.reachable}
          >
            <input
              type="radio"
              name="settings-docker"
              checked={mode === candidate.host}
              onChange={() => {
                setOther(false);
                edit({ dockerHost: candidate.host });
              }}
            />
            <span>
              <code>{candidate.host}</code> <span className="muted small">({candidate.source})</span>
              {candidate.inUse ? <span className="badge badge-ready">In use</span> : null}
              <span className={candidate.reachable ? 'small block tone-ok' : 'small block muted'}>
                {candidate.reachable ? `Docker ${candidate.version ?? ''} answers here.` : `Does not answer: ${candidate.problem ?? 'no Docker here'}`}
              </span>
            </span>
          </label>
        ))}
        <label className="choice choice-block">
          <input
            type="radio"
            name="settings-docker"
            checked={mode === 'other'}
            onChange={() => setOther(true)}
            data-testid="settings-docker-other"
          />
          <span className="grow">
            <strong>Another address</strong>
            <span className="muted small block">Like unix:///var/run/docker.sock, or tcp://host:2376 for an engine on another computer.</span>
            {mode === 'other' ? (
              <input
                type="text"
                className="block-input"
                aria-label="Docker address"
                value={draft.dockerHost}
                placeholder="unix:///var/run/docker.sock"
                aria-invalid={error ? true : undefined}
                onChange={(e) => edit({ dockerHost: e.target.value })}
                data-testid="settings-docker-host"
              />
            ) : null}
          </span>
        </label>
      </fieldset>
      <FieldError id="settings-docker-host" error={error} />
      <div className="row">
        <span className="muted small">{engines === undefined || looking ? 'Looking for Docker engines…' : problem ? `Could not look for engines: ${problem}` : 'A new address is tried when you save, and used at once.'}</span>
        <button type="button" className="secondary small" onClick={refresh} disabled={looking} data-testid="settings-docker-refresh">
          Look again
        </button>
      </div>
    </SettingsSection>
  );
}
