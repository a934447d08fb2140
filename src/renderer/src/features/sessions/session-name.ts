import { usePanel } from '../../stores/panel-context';

/**
 * What a person calls a session: its name while Sandpit knows it, else the name the audit log recorded for it
 * (`recorded`), else "Ended session" (the id is in Details).
 */
export function useSessionName(sessionId: string | undefined, recorded?: string): string {
  const name = usePanel((s) => (sessionId ? s.sessions.find((x) => x.id === sessionId)?.name : undefined));
  if (!sessionId) return '—';
  return name ?? recorded ?? 'Ended session';
}

/** The name Activity's rows recorded for a session (the newest row that has one). */
export function recordedSessionName(rows: ReadonlyArray<{ sessionId?: string; sandbox?: { sessionName?: string } }>, sessionId: string): string | undefined {
  return rows.find((r) => r.sessionId === sessionId && r.sandbox?.sessionName)?.sandbox?.sessionName;
}

/** Every session id → name the panel knows (for lists of many rows). */
export function useSessionNames(): Map<string, string> {
  const sessions = usePanel((s) => s.sessions);
  return new Map(sessions.map((s) => [s.id, s.name]));
}
