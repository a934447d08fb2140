import type { ReactElement } from 'react';
import { useAppStore, usePanel } from '../../stores/panel-context';

/** The status bar's MCP address, connected clients and waiting requests. */
export function ConnectStatus(): ReactElement | null {
  const info = useAppStore('connect', (s) => s.info);
  const waiting = useAppStore('approvals', (s) => s.pending.length);
  const navigate = usePanel((s) => s.navigate);
  return (
    <>
      {info ? (
        <>
          <span className="status-item" data-testid="status-mcp">
            <span className="muted">MCP:</span> <code>{info.serving ? info.mcpUrl : 'local server off'}</code>
          </span>
          <button
            type="button"
            className="status-item link-button"
            onClick={() => navigate('connect')}
            data-testid="status-clients"
          >
            {info.clients.length === 0
              ? 'No assistant connected'
              : info.clients.length === 1
                ? `1 assistant connected (${info.clients[0]!.name})`
                : `${info.clients.length} assistants connected`}
          </button>
        </>
      ) : null}
      {waiting > 0 ? (
        <span className="status-item status-wait" data-testid="status-approvals">
          {waiting === 1 ? '1 request waits for your answer' : `${waiting} requests wait for your answer`}
        </span>
      ) : null}
    </>
  );
}
