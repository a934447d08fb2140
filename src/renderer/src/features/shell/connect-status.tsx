import type { ReactElement } from 'react';
import type { ConnectedClient } from '../../../../shared/domain/connect';
import { useAppStore, usePanel } from '../../stores/panel-context';

/**
 * "No assistant connected", "1 assistant connected (Claude Desktop)", "2 assistants connected (Cursor, Claude Desktop)":
 * the most recently connected first, so the one that just connected is named even when many are.
 */
export function clientsWords(clients: readonly ConnectedClient[]): string {
  // One app with several connections (windows, restarts) is one assistant.
  const newestFirst = [...clients].sort((a, b) => b.connectedAt.localeCompare(a.connectedAt));
  const names = [...new Set(newestFirst.map((c) => c.name))];
  if (names.length === 0) return 'No assistant connected';
  const list = names.length <= 3 ? names.join(', ') : `${names.slice(0, 2).join(', ')} and ${names.length - 2} more`;
  return `${names.length === 1 ? '1 assistant' : `${names.length} assistants`} connected (${list})`;
}

/** The status bar's assistants connected now and requests waiting. */
export function ConnectStatus(): ReactElement | null {
  const info = useAppStore('connect', (s) => s.info);
  const waiting = useAppStore('approvals', (s) => s.pending.length);
  const navigate = usePanel((s) => s.navigate);
  return (
    <>
      {info ? (
        <button type="button" className="status-item link-button" onClick={() => navigate('connect')} data-testid="status-clients">
          {info.serving || info.clients.length > 0 ? clientsWords(info.clients) : 'Assistants connect when Sandpit starts them (see Connect)'}
        </button>
      ) : null}
      {waiting > 0 ? (
        <span className="status-item status-wait" data-testid="status-approvals">
          {waiting === 1 ? '1 request waits for your answer' : `${waiting} requests wait for your answer`}
        </span>
      ) : null}
    </>
  );
}
