import { call } from '../api/dispatcher';
import type { CallContext, Handlers } from '../api/api-types';

/**
 * Stops the sessions a client made (when its MCP session ends), through the API like any other call.
 * Sessions made in the panel, which every client may use, stay, and so do kept ones (they were asked to
 * outlive Sandpit itself), and so do sessions a background run of the client still runs in. Resolves with how many were stopped.
 */
export async function stopOwnSessions(api: Handlers, context: CallContext): Promise<number> {
  const { sessions } = await call(api, 'sessions.list', {}, context);
  // A session holding a background run not finished yet stays: the run outlives its client (issue 23), and the
  // session then stops after its own idle time.
  const { runs } = await call(api, 'runs.list', {}, context);
  const held = new Set(runs.filter((r) => r.state === 'queued' || r.state === 'running').flatMap((r) => (r.sessionId ? [r.sessionId] : [])));
  const own = sessions.filter((s) => !s.shared && !s.kept && !held.has(s.id));
  await Promise.all(own.map((s) => call(api, 'sessions.stop', { sessionId: s.id }, context).catch(() => undefined)));
  return own.length;
}
