import { useState } from 'react';
import type { ReactElement } from 'react';
import type { EnvironmentView as Environment } from '../../../../shared/domain/environment';
import { ISOLATION_WORDS } from '../../../../shared/domain/isolation';
import { allPackages } from '../../../../shared/domain/package-managers';
import { ConfirmModal, Modal } from '../../components/modal';
import { LANGUAGE_WORDS, formatTime } from '../../lib/format';
import { useAppStore, useClient, usePanel } from '../../stores/panel-context';
import { BuildLogView } from './build-log';
import { BuildProblem } from './build-problem';
import { affectedPackages, environmentPurpose, includedPackages } from './environment-words';
import { AllowedHosts } from './allowed-hosts';
import { NETWORK_WORDS } from './network-choice';

const BUILD_WORDS = {
  idle: 'Not built yet',
  plain: 'Ready to use',
  building: 'Building…',
  failed: 'Build failed',
  ready: 'Ready',
} as const;

/** Build state in words; an environment without packages needs no build (it uses the plain sandbox image). */
function buildState(env: Environment, building: boolean): keyof typeof BUILD_WORDS {
  // The build record, not the status: a view sent as the build ends can still say "building".
  if (building || env.build?.state === 'building') return 'building';
  const state = env.build?.state ?? (env.image ? 'ready' : 'idle');
  const packages = allPackages(env.packages).length;
  // Nothing to install: it runs on the plain sandbox image, so there is nothing to build or rebuild.
  return packages === 0 && state !== 'failed' ? 'plain' : state;
}

/** One environment: what it is for and holds, its build state; build, edit, copy, delete, start a session. */
export function EnvironmentRow({ env, onEdit }: { env: Environment; onEdit: (env: Environment) => void }): ReactElement {
  const client = useClient();
  const building = useAppStore('environments', (s) => s.building.includes(env.id));
  const build = useAppStore('environments', (s) => s.build);
  const createSession = usePanel((s) => s.createSession);
  const navigate = usePanel((s) => s.navigate);
  const reportError = usePanel((s) => s.reportError);
  const engineUp = usePanel((s) => s.engine?.state === 'up' && s.link === 'up');
  const [open, setOpen] = useState(false);
  const [confirmRemove, setConfirmRemove] = useState(false);
  const [failedStart, setFailedStart] = useState(false);
  const state = buildState(env, building);
  const { fromBase, added } = includedPackages(env);
  const failed = state === 'failed' ? new Set(affectedPackages(env)) : new Set<string>();
  const failedPackage = state === 'failed' ? env.build?.failedPackage : undefined;

  const runBuild = async (): Promise<void> => {
    setOpen(true);
    await build(env.id, state === 'ready' || state === 'failed');
  };
  const copy = async (): Promise<void> => {
    try {
      onEdit(await client.call('environments.copy', { environmentId: env.id }));
    } catch (error) {
      reportError(error);
    }
  };
  const remove = async (): Promise<void> => {
    setConfirmRemove(false);
    try {
      await client.call('environments.remove', { environmentId: env.id });
    } catch (error) {
      reportError(error);
    }
  };
  const start = async (): Promise<void> => {
    if (state === 'failed') {
      setFailedStart(true);
      return;
    }
    const session = await createSession({ environment: env.id });
    if (session) navigate('sessions', session.id);
  };

  return (
    <li className="card env" data-testid="env-row" data-env-id={env.id} data-build-state={state}>
      <div>
        <div>
          <h2 className="env-title">
            {env.name}
            {env.preset ? (
              <span className="badge" data-testid="env-preset">
                Preset
              </span>
            ) : null}
            <span className={`badge badge-build-${state}`} data-testid="env-build-state">
              {BUILD_WORDS[state]}
            </span>
          </h2>
          {environmentPurpose(env) ? <p className="small">{environmentPurpose(env)}</p> : null}
          <p className="muted small" data-testid="env-facts">
            {LANGUAGE_WORDS[env.language]} · {NETWORK_WORDS[env.network].title}
            {env.network === 'open' ? ' ⚠' : ''} ·{' '}
            <span data-testid="env-isolation">{env.isolation ? `${ISOLATION_WORDS[env.isolation]} isolation` : 'Isolation as in Settings'}</span>
          </p>
          {env.network === 'packages' ? <AllowedHosts env={env} onProblem={reportError} /> : null}
          {env.network === 'packages' && env.secrets?.length ? (
            <p className="small" data-testid="env-secrets-used">
              Secrets its sessions may use: {env.secrets.map((s) => `${s.name} (sent to ${s.hosts.join(', ')})`).join('; ')}
            </p>
          ) : null}
          {fromBase.length > 0 ? (
            <p className="small" data-testid="env-comes-with">
              Comes with {fromBase.join(', ')}.
            </p>
          ) : null}
          {added.length > 0 ? (
            <ul className="chip-list" aria-label={`Packages added to ${env.name}`} data-testid="env-packages-list">
              {added.map((p) => {
                const bad = failed.has(p) || p === failedPackage;
                return (
                  <li key={p} className={bad ? 'chip chip-failed' : 'chip'} data-failed={bad || undefined}>
                    {p}
                  </li>
                );
              })}
            </ul>
          ) : fromBase.length === 0 ? (
            <p className="muted small">Only what {LANGUAGE_WORDS[env.language]} comes with; no packages added.</p>
          ) : null}
          {state === 'ready' && env.image ? <p className="muted small">Built {formatTime(env.image.builtAt)}</p> : null}
        </div>
        {state === 'failed' ? (
          <BuildProblem env={env} onBuild={() => void runBuild()} onDetails={() => setOpen(!open)} detailsOpen={open} canBuild={engineUp && !building} />
        ) : null}
        <div className="actions env-actions">
          <button type="button" onClick={() => void start()} disabled={!engineUp || building} data-testid="env-start-session">
            Start session
          </button>
          {state === 'plain' || state === 'failed' ? null : (
            <button type="button" className="secondary" onClick={() => void runBuild()} disabled={!engineUp || building} data-testid="env-build">
              {building ? 'Building…' : state === 'ready' ? 'Rebuild' : 'Build'}
            </button>
          )}
          {env.preset ? null : (
            <button type="button" className="secondary" onClick={() => onEdit(env)} data-testid="env-edit">
              Edit
            </button>
          )}
          <button type="button" className="secondary" onClick={() => void copy()} data-testid="env-copy">
            Copy
          </button>
          {env.preset ? null : (
            <button type="button" className="secondary danger-text" onClick={() => setConfirmRemove(true)} data-testid="env-remove">
              Delete
            </button>
          )}
        </div>
      </div>
      {state === 'plain' || state === 'failed' ? null : (
        <button type="button" className="link-button small" aria-expanded={open || building} onClick={() => setOpen(!open)} data-testid="env-log-toggle">
          {open || building ? 'Hide build log' : 'Show build log'}
        </button>
      )}
      {open || building ? (
        <BuildLogView environmentId={env.id} {...(failedPackage ? { failedPackage } : {})} {...(state === 'failed' && env.build?.logTail ? { saved: env.build.logTail } : {})} />
      ) : null}
      <details className="small env-details">
        <summary>Details</summary>
        <p className="muted">
          Id <code>{env.id}</code> · starting point <code>{env.base}</code>
          {env.image ? (
            <>
              {' '}
              · image <code>{env.image.tag}</code>
            </>
          ) : null}
        </p>
      </details>
      {confirmRemove ? (
        <ConfirmModal
          title={`Delete ${env.name}?`}
          testId="confirm-env-remove"
          confirmLabel="Delete"
          danger
          onClose={() => setConfirmRemove(false)}
          onConfirm={() => void remove()}
        >
          <p>Sessions already running keep working. New sessions cannot start from it any more.</p>
        </ConfirmModal>
      ) : null}
      {failedStart ? (
        <Modal
          title={`“${env.name}” cannot start a session yet`}
          testId="env-failed-start"
          closeLabel="Close"
          onClose={() => setFailedStart(false)}
          actions={
            <button
              type="button"
              disabled={!engineUp || building}
              onClick={() => {
                setFailedStart(false);
                void runBuild();
              }}
              data-testid="env-failed-start-build"
            >
              Build again
            </button>
          }
        >
          <p>Its last build did not work, so there is nothing to start a session from.</p>
          <p>{env.build?.diagnosis?.summary ?? env.build?.error}</p>
          {env.build?.diagnosis?.fixes[0] ? <p className="muted">{env.build.diagnosis.fixes[0]}</p> : null}
        </Modal>
      ) : null}
    </li>
  );
}
