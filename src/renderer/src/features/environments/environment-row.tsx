import { useState } from 'react';
import type { ReactElement } from 'react';
import type { EnvironmentView as Environment } from '../../../../shared/domain/environment';
import { ConfirmModal } from '../../components/modal';
import { LANGUAGE_WORDS, formatTime } from '../../lib/format';
import { useAppStore, useClient, usePanel } from '../../stores/panel-context';
import { BuildLogView } from './build-log';
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
  if (building) return 'building';
  const state = env.build?.state ?? (env.image ? 'ready' : 'idle');
  const packages = env.packages.pip.length + env.packages.npm.length + env.packages.apt.length;
  return state === 'idle' && packages === 0 ? 'plain' : state;
}

/** One environment: what it holds, its build state; build, edit, copy, delete, start a session. */
export function EnvironmentRow({
  env,
  onEdit,
}: {
  env: Environment;
  onEdit: (env: Environment) => void;
}): ReactElement {
  const client = useClient();
  const building = useAppStore('environments', (s) => s.building.includes(env.id));
  const build = useAppStore('environments', (s) => s.build);
  const createSession = usePanel((s) => s.createSession);
  const navigate = usePanel((s) => s.navigate);
  const reportError = usePanel((s) => s.reportError);
  const engineUp = usePanel((s) => s.engine?.state === 'up');
  const [open, setOpen] = useState(false);
  const [confirmRemove, setConfirmRemove] = useState(false);
  const state = buildState(env, building);
  const packages = [...env.packages.pip, ...env.packages.npm, ...env.packages.apt];
  const failedPackage = env.build?.state === 'failed' ? env.build.failedPackage : undefined;

  const runBuild = async (): Promise<void> => {
    setOpen(true);
    await build(env.id, state === 'ready');
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
          <p className="muted small">
            {LANGUAGE_WORDS[env.language]} · {env.base} · {NETWORK_WORDS[env.network].title}
            {env.network === 'open' ? ' ⚠' : ''} · <code>{env.id}</code>
          </p>
          {env.description ? <p className="small">{env.description}</p> : null}
          {packages.length > 0 ? (
            <ul className="chip-list" aria-label={`Packages of ${env.name}`}>
              {packages.map((p) => (
                <li
                  key={p}
                  className={p === failedPackage ? 'chip chip-failed' : 'chip'}
                  data-failed={p === failedPackage || undefined}
                >
                  {p}
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted small">No extra packages.</p>
          )}
          {state === 'failed' && env.build?.error ? (
            <p className="field-error" data-testid="env-build-error">
              {failedPackage ? (
                <>
                  <strong>{failedPackage}</strong> could not be installed.{' '}
                </>
              ) : null}
              {env.build.error}
            </p>
          ) : null}
          {state === 'ready' && env.image ? <p className="muted small">Built {formatTime(env.image.builtAt)}</p> : null}
        </div>
        <div className="actions env-actions">
          <button
            type="button"
            onClick={() => void start()}
            disabled={!engineUp || building}
            data-testid="env-start-session"
          >
            Start session
          </button>
          {state === 'plain' ? null : (
            <button
              type="button"
              className="secondary"
              onClick={() => void runBuild()}
              disabled={!engineUp || building}
              data-testid="env-build"
            >
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
            <button
              type="button"
              className="secondary danger-text"
              onClick={() => setConfirmRemove(true)}
              data-testid="env-remove"
            >
              Delete
            </button>
          )}
        </div>
      </div>
      {state === 'plain' ? null : (
        <button
          type="button"
          className="link-button small"
          aria-expanded={open || building}
          onClick={() => setOpen(!open)}
          data-testid="env-log-toggle"
        >
          {open || building ? 'Hide build log' : 'Show build log'}
        </button>
      )}
      {open || building ? <BuildLogView environmentId={env.id} {...(failedPackage ? { failedPackage } : {})} /> : null}
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
    </li>
  );
}
