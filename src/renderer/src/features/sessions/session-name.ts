import { usePanel } from '../../stores/panel-context';

/** What a person calls a session: its name while Sandpit knows it, else "an ended session" (the id is in Details). */
export function useSessionName(sessionId: string | undefined): string {
  const name = usePanel((s) => (sessionId ? s.sessions.find((x) => x.id === sessionId)?.name : undefined));
  if (!sessionId) return '—';
  return name ?? 'Ended session';
}

/** Every session id → name the panel knows (for lists of many rows). */
export function useSessionNames(): Map<string, string> {
  const sessions = usePanel((s) => s.sessions);
  return new Map(sessions.map((s) => [s.id, s.name]));
}
