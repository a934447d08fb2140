import { useEffect, useState } from 'react';
import type { ReactElement } from 'react';
import type { ConnectedClient } from '../../../../shared/domain/connect';
import { CopyButton } from '../../components/copy-button';
import { EmptyState, LoadProblem, NotAvailable } from '../../components/empty-state';
import { ConfirmModal } from '../../components/modal';
import { formatAge, plural } from '../../lib/format';
import { useNow } from '../../lib/use-now';
import { useAppStore, usePanel } from '../../stores/panel-context';
import { AssistantConfigs } from './assistant-configs';
import { AssistantsCard } from './assistants-card';
import { HIDDEN_TOKEN, commandLine } from './connect-text';
import { PanelLinkCard } from './panel-link-card';

const TRANSPORT_WORDS: Record<string, string> = {
  'mcp-http': 'connected to Sandpit while it runs',
  'mcp-stdio': 'over stdio: it started "sandpit mcp"',
  http: 'web panel',
  ipc: 'this app',
  rest: 'through the simple web interface',
  internal: 'Sandpit',
};

/** One row per assistant (an app with several windows or reconnections is one assistant). */
function byName(clients: readonly ConnectedClient[]): { name: string; count: number; first: ConnectedClient }[] {
  const groups = new Map<string, { name: string; count: number; first: ConnectedClient }>();
  for (const c of clients) {
    const group = groups.get(c.name);
    if (group) group.count += 1;
    else groups.set(c.name, { name: c.name, count: 1, first: c });
  }
  return [...groups.values()];
}

/** How to connect an assistant: ready-made setups, who is connected, the panel link, the access key; technical details last. */
export function ConnectScreen(): ReactElement {
  const status = useAppStore('connect', (s) => s.status);
  const problem = useAppStore('connect', (s) => s.problem);
  const info = useAppStore('connect', (s) => s.info);
  const token = useAppStore('connect', (s) => s.token);
  const load = useAppStore('connect', (s) => s.load);
  const reveal = useAppStore('connect', (s) => s.reveal);
  const hide = useAppStore('connect', (s) => s.hide);
  const rotate = useAppStore('connect', (s) => s.rotate);
  const navigate = usePanel((s) => s.navigate);
  const [confirmRotate, setConfirmRotate] = useState(false);
  const now = useNow();

  useEffect(() => {
    void load();
  }, [load]);

  if (status === 'unavailable') {
    return (
      <section data-testid="connect-screen">
        <h1 tabIndex={-1}>Connect</h1>
        <NotAvailable testId="connect-unavailable" what="connection details" />
      </section>
    );
  }

  return (
    <section data-testid="connect-screen" aria-labelledby="connect-title">
      <div className="screen-head">
        <div>
          <h1 id="connect-title" tabIndex={-1}>
            Connect
          </h1>
          <p className="muted">Tell your assistant (Claude, Cursor, VS Code …) where Sandpit is, so it can run code here.</p>
        </div>
        <button type="button" className="secondary" onClick={() => navigate('getting-started')} data-testid="connect-guide-open">
          Getting started
        </button>
      </div>
      {status === 'error' && problem ? <LoadProblem testId="connect-problem" message={problem} retry={() => void load()} /> : null}
      {status === 'loading' ? <p className="muted">Loading…</p> : null}
      {info ? (
        <>
          <AssistantsCard clients={info.clients} />
          <AssistantConfigs configs={info.configs} token={token} />
          <section className="card" aria-labelledby="clients-title">
            <h2 id="clients-title">Connected now</h2>
            {info.clients.length === 0 ? (
              <EmptyState testId="connect-clients-empty">
                No assistant is connected right now. Connect one above (or paste its setup), then restart it.
              </EmptyState>
            ) : (
              <ul className="list" data-testid="connect-clients">
                {byName(info.clients).map(({ name, count, first }) => (
                  <li key={name} className="list-row" data-testid="connect-client">
                    <span>
                      <strong>{name}</strong> <span className="muted">{TRANSPORT_WORDS[first.transport] ?? first.transport}</span>
                      {count > 1 ? <span className="muted small"> · {plural(count, 'connection')}</span> : null}
                    </span>
                    <span className="muted small">connected {formatAge(first.connectedAt, now)}</span>
                  </li>
                ))}
              </ul>
            )}
          </section>
          <PanelLinkCard />
          <section className="card" aria-labelledby="token-title">
            <h2 id="token-title">Access key for assistants</h2>
            {info.serving ? null : (
              <p className="notice notice-info" data-testid="connect-not-serving">
                Sandpit does not take network connections right now, so only the recommended setup above works.
              </p>
            )}
            <p className="muted">
              Apps that connect to Sandpit while it runs send this key. Anyone with it can run code through Sandpit on this
              computer.
            </p>
            <div className="kv">
              <code data-testid="connect-token">{token ?? HIDDEN_TOKEN}</code>
              <span className="actions">
                {token ? (
                  <>
                    <CopyButton text={token} testId="connect-token-copy" />
                    <button type="button" className="secondary" onClick={hide} data-testid="connect-token-hide">
                      Hide
                    </button>
                  </>
                ) : (
                  <button type="button" className="secondary" onClick={() => void reveal()} data-testid="connect-token-reveal">
                    Show
                  </button>
                )}
                <button type="button" className="secondary danger-text" onClick={() => setConfirmRotate(true)} data-testid="connect-token-rotate">
                  Make a new key
                </button>
              </span>
            </div>
            {problem && status === 'ready' ? <p className="field-error">{problem}</p> : null}
          </section>
          <details className="card details-card" data-testid="connect-details">
            <summary>Details for developers</summary>
            <div className="kv">
              <span className="label">MCP address</span>
              <code data-testid="connect-mcp-url">{info.mcpUrl}</code>
              <CopyButton text={info.mcpUrl} testId="connect-mcp-url-copy" />
            </div>
            <div className="kv">
              <span className="label">Start command (for apps that launch Sandpit themselves)</span>
              <code data-testid="connect-stdio-command">{commandLine(info.stdioCommand)}</code>
              <CopyButton text={commandLine(info.stdioCommand)} testId="connect-stdio-copy" />
            </div>
            <div className="kv">
              <span className="label">Web panel (without its key)</span>
              <code data-testid="connect-panel-url">{info.panelUrl}</code>
            </div>
            <p className="muted small">
              The access key is also kept in <code>{info.tokenFile}</code>; the panel link’s key in the same folder (
              <code>panel-token</code>).
            </p>
          </details>
        </>
      ) : null}
      {confirmRotate ? (
        <ConfirmModal
          title="Make a new access key?"
          testId="confirm-rotate"
          confirmLabel="Make a new key"
          danger
          onClose={() => setConfirmRotate(false)}
          onConfirm={() => {
            setConfirmRotate(false);
            void rotate();
          }}
        >
          <p>
            The old key stops working at once. Apps that connect to Sandpit while it runs need the new key before they work again.
            Apps set up the recommended way, and this panel, are not affected.
          </p>
        </ConfirmModal>
      ) : null}
    </section>
  );
}
