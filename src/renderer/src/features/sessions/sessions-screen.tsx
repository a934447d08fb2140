import type { ReactElement } from 'react';
import { usePanel } from '../../stores/panel-context';
import { SessionList } from './session-list';
import { SessionPage } from './session-page';

/** The list of sessions, or the one opened from it. */
export function SessionsScreen(): ReactElement {
  const openSessionId = usePanel((s) => s.openSessionId);
  return openSessionId ? <SessionPage sessionId={openSessionId} /> : <SessionList />;
}
