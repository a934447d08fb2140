import { useEffect } from 'react';
import type { ReactElement } from 'react';
import type { AssistantChange, AssistantStatus } from '../../../../shared/domain/assistants';
import type { ConnectedClient } from '../../../../shared/domain/connect';
import { lineDiff } from '../../../../shared/line-diff';
import { useAppStore } from '../../stores/panel-context';

/** What a row says about an assistant, in plain words. */
function stateWords(status: AssistantStatus, talking: boolean, changed: boolean): string {
  switch (status.state) {
    case 'connected':
      // Right after Connect the message below says how to restart it; else it is said here.
      return talking
        ? 'Connected: it is talking to Sandpit now'
        : `Set up; not connected yet.${changed ? '' : ` ${status.restart}`}`;
    case 'outdated':
      return 'Set up for another copy of Sandpit (another program or data folder). Connect updates it to this one.';
    case 'unreadable':
      return 'Its settings file has a mistake, so Sandpit leaves it alone.';
    default:
      return 'Not connected';
  }
}

/** The file's lines that changed, with two kept lines around each change. */
function ChangeLines({ change }: { change: AssistantChange }): ReactElement {
  const lines = lineDiff(change.before, change.after);
  const near = (index: number): boolean =>
    lines.slice(Math.max(0, index - 2), index + 3).some((line) => line.op !== 'same');
  return (
    <pre className="content-text small" data-testid={`assistant-diff-${change.status.id}`}>
      {lines.map((line, index) =>
        line.op === 'same' && !near(index) ? null : (
          <div
            key={index}
            className={line.op === 'added' ? 'diff-added' : line.op === 'removed' ? 'diff-removed' : undefined}
          >
            {line.op === 'added' ? '+ ' : line.op === 'removed' ? '- ' : '  '}
            {line.text}
          </div>
        ),
      )}
    </pre>
  );
}

function AssistantRow({
  status,
  clients,
}: {
  status: AssistantStatus;
  clients: readonly ConnectedClient[];
}): ReactElement {
  const busy = useAppStore('connect', (s) => s.busy);
  const change = useAppStore('connect', (s) => s.changes[status.id]);
  const refusal = useAppStore('connect', (s) => s.refusals[status.id]);
  const connect = useAppStore('connect', (s) => s.connectAssistant);
  const disconnect = useAppStore('connect', (s) => s.disconnectAssistant);
  const talking = status.state === 'connected' && clients.some((c) => c.assistant === status.id);
  const state = talking ? 'talking' : status.state;
  return (
    <li className="list-row assistant-row" data-testid={`assistant-${status.id}`} data-state={state}>
      <div>
        <strong>{status.label}</strong>{' '}
        <span className="muted" data-testid={`assistant-state-${status.id}`}>
          {stateWords(status, talking, change !== undefined)}
        </span>
        <div className="muted small">
          <code>{status.configPath}</code>
        </div>
        {status.problem ? (
          <p className="field-error" data-testid={`assistant-problem-${status.id}`}>
            {status.problem}
          </p>
        ) : null}
        {refusal ? (
          <p className="field-error" role="alert" data-testid={`assistant-refusal-${status.id}`}>
            {refusal}
          </p>
        ) : null}
        {change ? (
          <div role="status" data-testid={`assistant-message-${status.id}`}>
            <p className="small">{change.message}</p>
            {change.changed ? (
              <details>
                <summary className="small">Show the change</summary>
                <ChangeLines change={change} />
              </details>
            ) : null}
          </div>
        ) : null}
      </div>
      <span className="actions">
        {status.state === 'not-connected' || status.state === 'outdated' ? (
          <button
            type="button"
            disabled={busy !== undefined}
            onClick={() => void connect(status.id)}
            data-testid={`assistant-connect-${status.id}`}
          >
            {status.state === 'outdated' ? 'Update' : 'Connect'}
          </button>
        ) : null}
        {status.state === 'connected' || status.state === 'outdated' ? (
          <button
            type="button"
            className="secondary"
            disabled={busy !== undefined}
            onClick={() => void disconnect(status.id)}
            data-testid={`assistant-disconnect-${status.id}`}
          >
            Disconnect
          </button>
        ) : null}
        {status.deepLink && status.state === 'not-connected' ? (
          <a className="small" href={status.deepLink} data-testid={`assistant-deeplink-${status.id}`}>
            Or let {status.label} add it
          </a>
        ) : null}
      </span>
    </li>
  );
}

/** One click to connect: the assistants found on this computer, each with Connect / Disconnect. */
export function AssistantsCard({ clients }: { clients: readonly ConnectedClient[] }): ReactElement {
  const assistants = useAppStore('connect', (s) => s.assistants);
  const load = useAppStore('connect', (s) => s.loadAssistants);
  useEffect(() => {
    void load();
  }, [load]);
  const found = assistants?.filter((a) => a.state !== 'not-found') ?? [];
  const missing = assistants?.filter((a) => a.state === 'not-found') ?? [];
  return (
    <section className="card" aria-labelledby="assistants-title" data-testid="connect-assistants">
      <h2 id="assistants-title">Connect an assistant in one click</h2>
      <p className="muted">
        Connect adds Sandpit to the assistant’s settings file. Everything else in the file stays as it is, and Sandpit
        keeps the file as it was, so Disconnect can put it back.
      </p>
      {assistants === undefined ? <p className="muted">Looking for assistants…</p> : null}
      {assistants && found.length === 0 ? (
        <p className="muted" data-testid="assistants-none">
          No assistant Sandpit knows was found on this computer. Install one (Claude Desktop, Cursor, VS Code …) and
          open it once, or use the setup below.
        </p>
      ) : null}
      {found.length > 0 ? (
        <ul className="list">
          {found.map((status) => (
            <AssistantRow key={status.id} status={status} clients={clients} />
          ))}
        </ul>
      ) : null}
      {missing.length > 0 ? (
        <details data-testid="assistants-missing">
          <summary className="small">Not found on this computer ({missing.length})</summary>
          <ul className="list">
            {missing.map((status) => (
              <li key={status.id} className="list-row small">
                <span>{status.label}</span>
                <span className="muted">
                  its settings would be in <code>{status.configPath}</code>
                </span>
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </section>
  );
}
