import type { ReactElement } from 'react';
import type { EnvironmentView } from '../../../../shared/domain/environment';
import { usePanel } from '../../stores/panel-context';
import { affectedPackages } from './environment-words';

/**
 * Why the last build failed, for a person: the cause in words, the packages it hit, what to do — with the
 * installer's own log one click away (the row's "Show details").
 */
export function BuildProblem({
  env,
  onBuild,
  onDetails,
  detailsOpen,
  canBuild,
}: {
  env: EnvironmentView;
  onBuild: () => void;
  onDetails: () => void;
  detailsOpen: boolean;
  canBuild: boolean;
}): ReactElement | null {
  const navigate = usePanel((s) => s.navigate);
  const build = env.build;
  if (!build || build.state !== 'failed') return null;
  const diagnosis = build.diagnosis;
  const affected = affectedPackages(env);
  const fixes = diagnosis?.fixes ?? ['Change its packages and build it again.'];
  return (
    <div className="build-problem" role="alert" data-testid="env-build-problem" data-cause={diagnosis?.cause ?? 'unknown'}>
      <h3>The last build did not work</h3>
      <p data-testid="env-build-error">{diagnosis?.summary ?? build.error ?? 'The build failed.'}</p>
      {affected.length > 0 ? (
        <p data-testid="env-build-affected">
          {affected.length === 1 ? 'Package affected: ' : 'Packages affected: '}
          {affected.map((p, i) => (
            <span key={p}>
              {i > 0 ? ', ' : ''}
              <strong>{p}</strong>
            </span>
          ))}
        </p>
      ) : null}
      <p className="label">What you can do</p>
      <ul className="fix-list">
        {fixes.map((fix) => (
          <li key={fix} data-testid="env-build-fix">
            {fix}
          </li>
        ))}
      </ul>
      <span className="actions">
        <button type="button" onClick={onBuild} disabled={!canBuild} data-testid="env-build-again">
          Build again
        </button>
        {diagnosis?.cause === 'unreachable' || diagnosis?.cause === 'timeout' ? (
          <button type="button" className="secondary" onClick={() => navigate('settings')} data-testid="env-build-settings">
            Open Settings
          </button>
        ) : null}
        <button type="button" className="link-button small" aria-expanded={detailsOpen} onClick={onDetails} data-testid="env-build-details">
          {detailsOpen ? 'Hide details' : 'Show details'}
        </button>
      </span>
    </div>
  );
}
