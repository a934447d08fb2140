import type { SessionInfo } from '../../shared/domain/session';
import type { EventBus } from '../events/event-bus';

/**
 * Each live session's extra allowed hosts (its environment's allow-list), kept up to date when the environment
 * changes and forgotten when the session is gone. The egress proxy reads it at each request, so a change applies at once.
 */
export function sessionAllowedHosts(deps: {
  bus: EventBus;
  /** The environments (their store): a session's allow-list is its environment's. */
  store: { get(environmentId: string): Promise<{ allowedHosts: readonly string[] }> };
  sessions: () => SessionInfo[];
}): (sessionId: string) => readonly string[] {
  const { bus, store } = deps;
  const allowedHostsOf = new Map<string, readonly string[]>();
  const refresh = async (sessionId: string, environmentId: string | undefined): Promise<void> => {
    if (!environmentId) return;
    const env = await store.get(environmentId).catch(() => undefined);
    if (env) allowedHostsOf.set(sessionId, env.allowedHosts);
  };
  bus.on('session.updated', (info) => {
    if (!allowedHostsOf.has(info.id)) void refresh(info.id, info.environment);
  });
  bus.on('session.removed', ({ sessionId }) => allowedHostsOf.delete(sessionId));
  bus.on('environment.updated', (env) => {
    for (const info of deps.sessions()) if (info.environment === env.id) allowedHostsOf.set(info.id, env.allowedHosts);
  });
  return (sessionId) => allowedHostsOf.get(sessionId) ?? [];
}
