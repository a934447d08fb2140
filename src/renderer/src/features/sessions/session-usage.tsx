import type { ReactElement } from 'react';
import type { SessionInfo } from '../../../../shared/domain/session';
import { formatAge, formatBytes, formatDuration, formatTime, plural } from '../../lib/format';

/** What the session uses and may use: runs, limits, packages. */
export function SessionUsage({ session, now }: { session: SessionInfo; now: number }): ReactElement {
  const { limits } = session;
  const rows: [string, string][] = [
    ['Runs', plural(session.runs, 'run')],
    ['Started', `${formatTime(session.createdAt)} (${formatAge(session.createdAt, now)})`],
    ['Last used', `${formatTime(session.lastUsedAt)} (${formatAge(session.lastUsedAt, now)})`],
    ['Stops by itself after', `${formatDuration(session.idleTimeoutMs)} without use`],
    ['Memory', `up to ${formatBytes(limits.memoryMb * 1024 * 1024)}`],
    ['Processor', `up to ${limits.cpus} ${limits.cpus === 1 ? 'core' : 'cores'}`],
    ['Workspace size', `up to ${formatBytes(limits.workspaceMb * 1024 * 1024)}`],
    ['Time per run', `up to ${formatDuration(limits.timeoutMs)}`],
    ['Output kept per run', `${formatBytes(limits.outputBytes)} per stream`],
    ['Packages added while running', session.packages.length ? session.packages.join(', ') : 'none'],
    ['Sandbox image', session.image],
    ['Container', session.containerId.slice(0, 12)],
  ];
  return (
    <dl className="facts" data-testid="session-usage">
      {rows.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
