import { useEffect, useState } from 'react';
import type { ReactElement } from 'react';
import { CopyButton } from '../../components/copy-button';
import { EmptyState, LoadProblem, NotAvailable } from '../../components/empty-state';
import { ConfirmModal } from '../../components/modal';
import { formatAge } from '../../lib/format';
import { useNow } from '../../lib/use-now';
import { useAppStore } from '../../stores/panel-context';
import { AssistantConfigs } from './assistant-configs';
import { HIDDEN_TOKEN, commandLine } from './connect-text';

const TRANSPORT_WORDS: Record<string, string> = {
  'mcp-http': 'over HTTP',
  'mcp-stdio': 'over stdio',
  http: 'web panel',
  ipc: 'this app',
  rest: 'REST',
  internal: 'Sandpit',
};

/** How to connect an assistant: the addresses, the token, the command, ready-made configs, who is connected. */
export function ConnectScreen(): ReactElement {
  const status = useAppStore('connect', (s) => s.status);
  const problem = useAppStore('connect', (s) => s.problem);
  const info = useAppStore('connect', (s) => s.info);
  const token = useAppStore('connect', (s) => s.token);
  const load = useAppStore('connect', (s) => s.load);
  const reveal = useAppStore('connect', (s) => s.reveal);
  const hide = useAppStore('connect', (s) => s.hide);
  const rotate = useAppStore('connect', (s) => s.rotate);
  const [confirmRotate, setConfirmRotate] = useState(false);
  const now = useNow();

  useEffect(() => {
    void load();
  }, [load]);

  if (status === 'unavailable') {
    return (
      <section data-testid="connect-screen">
        <h1>Connect</h1>
        <NotAvailable testId="connect-unavailable" what="connection details" />
      </section>
    );
  }

  return (
    <section data-testid="connect-screen" aria-labelledby="connect-title">
      <div className="screen-head">
        <div>
          <h1 id="connect-title">Connect</h1>
          <p className="muted">
            Tell your assistant (Claude, Cursor, VS Code …) where Sandpit is, so it can run code here.
          </p>
        </div>
      </div>
      {status === 'error' && problem ? (
        <LoadProblem testId="connect-problem" message={problem} retry={() => void load()} />
      ) : null}
      {status === 'loading' ? <p className="muted">Loading…</p> : null}
      {info ? (
        <>
          <section className="card" aria-labelledby="endpoints-title">
            <h2 id="endpoints-title">Addresses</h2>
            {info.serving ? null : (
              <p className="notice notice-info" data-testid="connect-not-serving">
                The local server is not running right now, so HTTP connections will not work. The stdio setup below
                works anyway.
              </p>
            )}
            <div className="kv">
              <span className="label">MCP address</span>
              <code data-testid="connect-mcp-url">{info.mcpUrl}</code>
              <CopyButton text={info.mcpUrl} testId="connect-mcp-url-copy" />
            </div>
            <div className="kv">
              <span className="label">Web panel</span>
              <code data-testid="connect-panel-url">{info.panelUrl}</code>
              <CopyButton
                text={token ? `${info.panelUrl}#token=${token}` : info.panelUrl}
                label={token ? 'Copy link with token' : 'Copy'}
                testId="connect-panel-url-copy"
              />
            </div>
            <div className="kv">
              <span className="label">Access token</span>
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
                  <button
                    type="button"
                    className="secondary"
                    onClick={() => void reveal()}
                    data-testid="connect-token-reveal"
                  >
                    Reveal
                  </button>
                )}
                <button
                  type="button"
                  className="secondary danger-text"
                  onClick={() => setConfirmRotate(true)}
                  data-testid="connect-token-rotate"
                >
                  Make a new token
                </button>
              </span>
            </div>
            <p className="muted small">
              Anyone with the token can run code through Sandpit on this computer. It is also kept in{' '}
              <code>{info.tokenFile}</code>.
            </p>
            {problem && status === 'ready' ? <p className="field-error">{problem}</p> : null}
            <div className="kv">
              <span className="label">Command (stdio)</span>
              <code data-testid="connect-stdio-command">{commandLine(info.stdioCommand)}</code>
              <CopyButton text={commandLine(info.stdioCommand)} testId="connect-stdio-copy" />
            </div>
          </section>
          <AssistantConfigs configs={info.configs} token={token} />
          <section className="card" aria-labelledby="clients-title">
            <h2 id="clients-title">Connected now</h2>
            {info.clients.length === 0 ? (
              <EmptyState testId="connect-clients-empty">
                No assistant is connected right now. Paste one of the configurations above into your assistant, then
                restart it.
              </EmptyState>
            ) : (
              <ul className="list" data-testid="connect-clients">
                {info.clients.map((c) => (
                  <li
                    key={`${c.name}-${c.mcpSessionId ?? c.connectedAt}`}
                    className="list-row"
                    data-testid="connect-client"
                  >
                    <span>
                      <strong>{c.name}</strong>{' '}
                      <span className="muted">{TRANSPORT_WORDS[c.transport] ?? c.transport}</span>
                    </span>
                    <span className="muted small">connected {formatAge(c.connectedAt, now)}</span>
                  </li>
                ))}
              </ul>
            )}
          </section>
        </>
      ) : null}
      {confirmRotate ? (
        <ConfirmModal
          title="Make a new access token?"
          testId="confirm-rotate"
          confirmLabel="Make a new token"
          danger
          onClose={() => setConfirmRotate(false)}
          onConfirm={() => {
            setConfirmRotate(false);
            void rotate();
          }}
        >
          <p>
            The old token stops working at once. Assistants connected over HTTP, and web panels opened with the old
            link, need the new token before they work again. Setups that use the stdio command are not affected.
          </p>
        </ConfirmModal>
      ) : null}
    </section>
  );
}
