import { useLayoutEffect, useRef } from 'react';
import type { ReactElement } from 'react';
import { useAppStore } from '../../stores/panel-context';

/** The live log of an environment's build, with progress; lines naming the failed package are marked. */
export function BuildLogView({
  environmentId,
  failedPackage,
  saved,
}: {
  environmentId: string;
  failedPackage?: string;
  /** The end of the last failed build's log, kept by Sandpit: shown when this window saw no build. */
  saved?: readonly string[];
}): ReactElement {
  const log = useAppStore('environments', (s) => s.logs[environmentId]);
  const building = useAppStore('environments', (s) => s.building.includes(environmentId));
  const box = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    if (box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [log]);
  const live = log?.lines ?? [];
  const lines = live.length === 0 && !building && saved ? saved : live;
  const percent = log?.step && log.steps ? Math.min(100, Math.round((log.step / log.steps) * 100)) : undefined;
  const needle = failedPackage?.toLowerCase();
  return (
    <div className="build-log" data-testid="env-build-log" data-source={live.length === 0 && saved ? 'saved' : 'live'}>
      {building ? (
        <div className="progress-row">
          <progress max={100} value={percent} aria-label="Build progress" data-testid="env-build-progress" />
          <span className="muted small">
            {log?.step && log.steps ? `Step ${log.step} of ${log.steps}` : building ? 'Starting the build…' : ''}
          </span>
        </div>
      ) : null}
      <div ref={box} className="console log" role="log" aria-label="Build log" tabIndex={0}>
        {log?.trimmed ? <p className="con-note">Earlier lines were removed to save memory.</p> : null}
        {lines === saved ? <p className="con-note">The end of the last build’s log, as the installer wrote it:</p> : null}
        {lines.length === 0 ? (
          <p className="con-note">
            {building ? 'Waiting for the first lines…' : 'No build log in this window yet. Press Build to see one.'}
          </p>
        ) : (
          lines.map((line, i) => (
            <div
              key={i}
              className={needle && line.toLowerCase().includes(needle) ? 'log-line log-bad' : 'log-line'}
              data-testid="env-build-line"
            >
              {line}
            </div>
          ))
        )}
      </div>
    </div>
  );
}
