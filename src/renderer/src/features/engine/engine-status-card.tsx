import type { ReactElement } from 'react';
import { usePanel } from '../../stores/panel-context';

/** The engine's message without the fix when it repeats it (the fix has its own line). */
function withoutFix(message: string | undefined, fix: string | undefined): string {
  if (!message) return '';
  return fix ? message.split(fix).join('').replace(/\s+/g, ' ').trim() : message;
}

/** Is Docker running? If not: what is wrong and how to fix it, in plain words. */
export function EngineStatusCard(): ReactElement {
  const engine = usePanel((s) => s.engine);
  const checkEngine = usePanel((s) => s.checkEngine);

  if (!engine || engine.state === 'connecting') {
    return (
      <section className="card" aria-labelledby="engine-title">
        <h2 id="engine-title">
          <span className="dot dot-wait" aria-hidden="true" /> Looking for Docker…
        </h2>
      </section>
    );
  }

  if (engine.state === 'up') {
    const gvisor = engine.runtimes?.includes('runsc');
    return (
      <section className="card" aria-labelledby="engine-title">
        <h2 id="engine-title">
          <span className="dot dot-up" aria-hidden="true" /> Docker is running
        </h2>
        <p className="muted">
          Version {engine.version ?? 'unknown'} at {engine.endpoint}
          {gvisor ? ' · extra isolation (gVisor) is available' : ''}
        </p>
      </section>
    );
  }

  return (
    <section className="card card-alert" aria-labelledby="engine-title" role="alert" data-testid="engine-card">
      <h2 id="engine-title">
        <span className="dot dot-down" aria-hidden="true" /> Docker is not running
      </h2>
      <p>{withoutFix(engine.message, engine.fix) || `Sandpit cannot reach Docker at ${engine.endpoint}.`}</p>
      {engine.fix ? (
        <p>
          <strong>How to fix it:</strong> {engine.fix}
        </p>
      ) : null}
      <p className="muted">Sandpit keeps trying by itself; this page updates as soon as Docker answers.</p>
      <button type="button" onClick={() => void checkEngine()}>
        Check again
      </button>
    </section>
  );
}
