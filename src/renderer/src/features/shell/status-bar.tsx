import type { ReactElement, ReactNode } from 'react';
import { usePanel } from '../../stores/panel-context';

/** The engine part of the status bar: Docker's state in a few words. */
function EngineState(): ReactElement {
  const engine = usePanel((s) => s.engine);
  const checkEngine = usePanel((s) => s.checkEngine);
  const connection = usePanel((s) => s.connection);
  if (connection === 'unreachable') {
    return (
      <span className="status-item status-down" data-testid="status-engine" data-state="unknown">
        <span className="dot dot-down" aria-hidden="true" /> Not connected to Sandpit
      </span>
    );
  }
  if (!engine || engine.state === 'connecting') {
    return (
      <span className="status-item" data-testid="status-engine" data-state="connecting">
        <span className="dot dot-wait" aria-hidden="true" /> Looking for Docker…
      </span>
    );
  }
  if (engine.state === 'up') {
    return (
      <span className="status-item" data-testid="status-engine" data-state="up">
        <span className="dot dot-up" aria-hidden="true" /> Docker is running
        {engine.version ? <span className="muted"> · {engine.version}</span> : null}
      </span>
    );
  }
  return (
    <span className="status-item status-down" data-testid="status-engine" data-state="down">
      <span className="dot dot-down" aria-hidden="true" />
      <span className="status-down-text" title={engine.fix}>
        Docker is not running{engine.fix ? ` — ${engine.fix}` : ''}
      </span>
      <button
        type="button"
        className="secondary small"
        onClick={() => void checkEngine()}
        data-testid="status-engine-check"
      >
        Check again
      </button>
    </span>
  );
}

/** The bar at the bottom: Docker, and what the Connect feature adds (address, clients). */
export function StatusBar({ children }: { children?: ReactNode }): ReactElement {
  return (
    <footer className="status-bar" data-testid="status-bar" aria-label="Status">
      <EngineState />
      {children}
    </footer>
  );
}
