import { call } from '../api/dispatcher';
import type { CallContext, Handlers } from '../api/api-types';

/**
 * Stops the sessions a client made (when its MCP session ends), through the API like any other call.
 * Sessions made in the panel, which every client may use, stay, and so do kept ones (they were asked to
 * outlive Sandpit itself). Resolves with how many were stopped.
 */
export async function stopOwnSessions(api: Handlers, context: CallContext): Promise<number> {
  const { sessions } = await call(api, 'sessions.list', {}, context);
  const own = sessions.filter((s) => !s.shared && !s.kept);
  await Promise.all(own.map((s) => call(api, 'sessions.stop', { sessionId: s.id }, context).catch(() => undefined)));
  return own.length;
}
