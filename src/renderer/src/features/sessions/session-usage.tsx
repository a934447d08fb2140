import type { ReactElement } from 'react';
import type { SessionInfo } from '../../../../shared/domain/session';
import { ISOLATION_EXPLAINED } from '../../lib/isolation-words';
import { formatAge, formatBytes, formatDuration, formatTime, plural } from '../../lib/format';
import { NETWORK_WORDS } from '../environments/network-choice';
import { FOLDER_MODE_WORDS } from '../../../../shared/domain/shared-folder';

function Facts({ rows, testId }: { rows: [string, string][]; testId?: string }): ReactElement {
  return (
    <dl className="facts" data-testid={testId}>
      {rows.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** What the session may use, how it is kept apart, and — under Details — the technical names. */
export function SessionUsage({ session, now }: { session: SessionInfo; now: number }): ReactElement {
  const { limits } = session;
  return (
    <div data-testid="session-usage">
      <Facts
        rows={[
          ['Runs', plural(session.runs, 'run')],
          ['Started', `${formatTime(session.createdAt)} (${formatAge(session.createdAt, now)})`],
          ['Last used', `${formatTime(session.lastUsedAt)} (${formatAge(session.lastUsedAt, now)})`],
          ['Stops by itself after', `${formatDuration(session.idleTimeoutMs)} without use`],
          ['Memory', `up to ${formatBytes(limits.memoryMb * 1024 * 1024)}`],
          ['Processor', `up to ${limits.cpus} ${limits.cpus === 1 ? 'core' : 'cores'}`],
          ['Workspace size', `up to ${formatBytes(limits.workspaceMb * 1024 * 1024)}`],
          ['Time per run', `up to ${formatDuration(limits.timeoutMs)}`],
          ['Output kept per run', `${formatBytes(limits.outputBytes)} per stream`],
          ['Network', `${NETWORK_WORDS[session.network].title}: ${NETWORK_WORDS[session.network].explain}`],
          [
            'Isolation',
            `${ISOLATION_EXPLAINED[session.isolation].title}: ${ISOLATION_EXPLAINED[session.isolation].explain}` +
              (session.isolation === 'standard' ? ' For more, choose Strong (gVisor) in Settings or for an environment: gVisor puts a separate kernel between the code and the computer.' : ''),
          ],
          ['Packages added while running', session.packages.length ? session.packages.join(', ') : 'none'],
          [
            'Folders of this computer',
            session.folders.length ? session.folders.map((f) => `${f.hostPath} at ${f.mountPath} (${FOLDER_MODE_WORDS[f.mode]})`).join('; ') : 'none',
          ],
          ['Who may use it', session.shared ? 'Every assistant (it was started here)' : `Only ${session.client ?? 'the assistant that started it'}`],
        ]}
      />
      <details data-testid="session-details">
        <summary>Details</summary>
        <Facts
          testId="session-details-facts"
          rows={[
            ['Session id', session.id],
            ['Container', session.containerId.slice(0, 12)],
            ['Sandbox image', session.image],
            ['Environment id', session.environment ?? '—'],
            ['Connection to the sandbox', session.channel],
            ['Taken from the ready pool', session.fromPool ? 'yes' : 'no'],
          ]}
        />
      </details>
    </div>
  );
}
