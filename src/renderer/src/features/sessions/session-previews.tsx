import { useCallback, useEffect, useState } from 'react';
import type { ReactElement } from 'react';
import type { ListeningPort, PreviewInfo } from '../../../../shared/domain/preview';
import { EmptyState } from '../../components/empty-state';
import { useClient } from '../../stores/panel-context';
import { plainError } from '../../stores/panel-store';

/**
 * The Preview tab: what the session's sandbox serves, in a frame (each preview on an origin of its own, so its
 * pages can never act as the panel), in a browser tab, reloaded; the ports the sandbox listens on, read from inside
 * it, each with Preview; Stop for an open preview.
 */
export function SessionPreviews({ sessionId, running }: { sessionId: string; running: boolean }): ReactElement {
  const client = useClient();
  const [previews, setPreviews] = useState<PreviewInfo[]>([]);
  const [ports, setPorts] = useState<ListeningPort[] | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [shown, setShown] = useState<string | undefined>();
  const [frameKey, setFrameKey] = useState(0);

  const load = useCallback(() => {
    client.call('previews.list', { sessionId }).then(
      (r) => setPreviews(r.previews),
      (error: unknown) => setProblem(plainError(error)),
    );
    if (running) {
      client.call('previews.ports', { sessionId }).then(
        (r) => setPorts(r.ports),
        (error: unknown) => setProblem(plainError(error)),
      );
    }
  }, [client, running, sessionId]);

  useEffect(() => {
    load();
    return client.subscribe((event) => {
      if (
        (event.name === 'preview.updated' || event.name === 'process.updated') &&
        event.payload.sessionId === sessionId
      )
        load();
    });
  }, [client, load, sessionId]);

  const open = previews.filter((p) => p.state === 'open');
  const current = open.find((p) => p.id === shown) ?? open.at(-1);

  const previewPort = (port: number): void => {
    setProblem(undefined);
    client.call('previews.open', { sessionId, port }).then(
      (p) => {
        setShown(p.id);
        load();
      },
      (error: unknown) => setProblem(plainError(error)),
    );
  };

  return (
    <div data-testid="previews">
      {problem ? (
        <p className="error" role="alert" data-testid="previews-problem">
          {problem}
        </p>
      ) : null}
      {current ? (
        <div data-testid="preview-current" data-preview-id={current.id}>
          <p className="actions">
            <span>
              Port {current.port} at <code data-testid="preview-origin">{current.origin}</code>
            </span>
            <button
              type="button"
              className="secondary"
              onClick={() => setFrameKey((k) => k + 1)}
              data-testid="preview-reload"
            >
              Reload
            </button>
            <a
              className="button secondary"
              href={current.url}
              target="_blank"
              rel="noopener noreferrer"
              data-testid="preview-open-tab"
            >
              Open in a browser tab
            </a>
            <button
              type="button"
              className="danger"
              onClick={() => {
                client
                  .call('previews.stop', { previewId: current.id })
                  .then(load, (error: unknown) => setProblem(plainError(error)));
              }}
              data-testid="preview-stop"
            >
              Stop preview
            </button>
          </p>
          <iframe
            key={`${current.id}-${frameKey}`}
            src={current.url}
            title={`Preview of port ${current.port}`}
            className="preview-frame"
            // Its own origin; it may run its scripts and forms there, never navigate the panel.
            sandbox="allow-scripts allow-forms allow-same-origin allow-popups allow-downloads"
            referrerPolicy="no-referrer"
            style={{ width: '100%', height: '60vh', border: '1px solid var(--border, #ccc)', background: '#fff' }}
            data-testid="preview-frame"
          />
        </div>
      ) : (
        <EmptyState testId="previews-empty">
          No preview is open. Start a web app in this session (an assistant uses start_process), then press Preview next
          to its port below.
        </EmptyState>
      )}
      <h3>Ports this session listens on</h3>
      {!running ? (
        <p className="muted" data-testid="preview-ports-off">
          The session is not running: its ports show once it runs again.
        </p>
      ) : ports === undefined ? (
        <p className="muted">Reading the ports…</p>
      ) : ports.length === 0 ? (
        <p className="muted" data-testid="preview-ports-none">
          Nothing listens on a port in this session yet.
        </p>
      ) : (
        <ul className="plain-list" data-testid="preview-ports">
          {ports.map((p) => (
            <li key={p.port} data-testid="preview-port" data-port={p.port}>
              Port {p.port} <span className="muted small">({p.address})</span>{' '}
              <button
                type="button"
                className="secondary"
                onClick={() => previewPort(p.port)}
                data-testid="preview-port-open"
              >
                Preview
              </button>
            </li>
          ))}
        </ul>
      )}
      {previews.some((p) => p.state === 'ended') ? (
        <ul className="plain-list muted small" data-testid="previews-ended">
          {previews
            .filter((p) => p.state === 'ended')
            .map((p) => (
              <li key={p.id}>
                Preview of port {p.port} ended: {p.endedBy}
              </li>
            ))}
        </ul>
      ) : null}
    </div>
  );
}
