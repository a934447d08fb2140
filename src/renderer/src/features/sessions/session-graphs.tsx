import type { ReactElement } from 'react';
import { Sparkline } from '../../components/sparkline';
import { formatBytes } from '../../lib/format';
import { useSessionStats } from './session-stats';

function percent(part: number, whole: number): string {
  return whole > 0 ? `${Math.round((part / whole) * 100)}%` : '';
}

function Graph({ title, now, limit, values, max, testId }: { title: string; now: string; limit: string; values: number[]; max: number; testId: string }): ReactElement {
  return (
    <div className="graph" data-testid={testId}>
      <div className="graph-head">
        <span className="label">{title}</span>
        <span className="graph-now" data-testid={`${testId}-now`}>
          {now}
        </span>
      </div>
      <Sparkline values={values} max={max} label={`${title}: ${now} ${limit}`} />
      <span className="muted small">{limit}</span>
    </div>
  );
}

/** Live use of the session's processor, memory and workspace disk, against its limits, as small graphs. */
export function SessionGraphs({ sessionId, running }: { sessionId: string; running: boolean }): ReactElement {
  const { samples, problem } = useSessionStats(sessionId, running);
  const last = samples[samples.length - 1];
  return (
    <section className="card graphs-card" aria-labelledby="graphs-title" data-testid="session-stats" data-samples={samples.length}>
      <div className="row">
        <h2 id="graphs-title">What it uses now</h2>
        <span className="muted small">{running ? 'Updated every 2 seconds' : 'Shown while the session runs'}</span>
      </div>
      {problem && !last ? <p className="muted small">Could not measure it: {problem}</p> : null}
      {last ? (
        <div className="graphs">
          <Graph
            title="Processor"
            testId="stats-cpu"
            now={`${Math.round((last.cpu / last.cpuLimit) * 100)}%`}
            limit={`of ${last.cpuLimit} ${last.cpuLimit === 1 ? 'core' : 'cores'}`}
            values={samples.map((s) => s.cpu)}
            max={last.cpuLimit}
          />
          <Graph
            title="Memory"
            testId="stats-memory"
            now={formatBytes(last.memoryBytes)}
            limit={`of ${formatBytes(last.memoryLimitBytes)} (${percent(last.memoryBytes, last.memoryLimitBytes)})`}
            values={samples.map((s) => s.memoryBytes)}
            max={last.memoryLimitBytes}
          />
          {last.workspaceBytes !== undefined ? (
            <Graph
              title="Workspace disk"
              testId="stats-disk"
              now={formatBytes(last.workspaceBytes)}
              limit={last.workspaceLimitBytes ? `of ${formatBytes(last.workspaceLimitBytes)} (${percent(last.workspaceBytes, last.workspaceLimitBytes)})` : 'used'}
              values={samples.map((s) => s.workspaceBytes ?? 0)}
              max={last.workspaceLimitBytes ?? 0}
            />
          ) : null}
        </div>
      ) : running && !problem ? (
        <p className="muted small">Measuring…</p>
      ) : null}
    </section>
  );
}
