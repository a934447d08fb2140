import type { SessionInfo } from '../shared/domain/session';
import { openSession } from '../core/session-opening/session-factory';
import type { NewSessionRequest } from '../core/session-opening/session-factory';
import type { Sandpit } from '../core/app';

/**
 * A new session made the way every surface makes one (its environment gives the image), owned by the
 * panel unless `owner` is given. The tests' shorthand for `sessions.create` through the API.
 */
export async function newSession(sandpit: Pick<Sandpit, 'sessions' | 'environments' | 'folders'>, request: Omit<NewSessionRequest, 'sharing'> = {}): Promise<SessionInfo> {
  const { session } = await openSession(sandpit.sessions, sandpit.environments, { ...request, sharing: sandpit.folders });
  return session.info();
}
