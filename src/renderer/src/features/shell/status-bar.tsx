import type { ReactElement, ReactNode } from 'react';
import { usePanel } from '../../stores/panel-context';

/** The engine part of the status bar: Docker's state in a few words (nothing about Docker while Sandpit is out of reach). */
function EngineState(): ReactElement {
  const engine = usePanel((s) => s.engine);
  const checkEngine = usePanel((s) => s.checkEngine);
  const connection = usePanel((s) => s.connection);
  const lost = usePanel((s) => s.link === 'lost');
  if (lost && connection !== 'loading') {
    return (
      <span className="status-item status-down" data-testid="status-engine" data-state="lost" role="status">
        <span className="dot dot-wait" aria-hidden="true" /> Lost the connection to Sandpit — reconnecting…
      </span>
    );
  }
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
      <span className="status-item" data-testid="status-engine" data-state="up" title={`Docker ${engine.version ?? ''} at ${engine.endpoint}`}>
        <span className="dot dot-up" aria-hidden="true" /> Docker is running
      </span>
    );
  }
  return (
    <span className="status-item status-down" data-testid="status-engine" data-state="down">
      <span className="dot dot-down" aria-hidden="true" />
      <span className="status-down-text" title={engine.endpoint}>
        Sandpit cannot reach Docker
      </span>
      <button type="button" className="secondary small" onClick={() => void checkEngine()} data-testid="status-engine-check">
        Check again
      </button>
    </span>
  );
}

/** The bar at the bottom: Docker, and what the Connect feature adds (assistants, requests waiting). */
export function StatusBar({ children }: { children?: ReactNode }): ReactElement {
  // Nothing about assistants while Sandpit is out of reach: it would be what was true before.
  const lost = usePanel((s) => (s.link === 'lost' && s.connection !== 'loading') || s.connection === 'unreachable');
  return (
    <footer className="status-bar" data-testid="status-bar" aria-label="Status">
      <EngineState />
      {lost ? null : children}
    </footer>
  );
}
