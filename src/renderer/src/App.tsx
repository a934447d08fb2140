import type { ReactElement } from 'react';
import { EngineStatusCard } from './features/engine/engine-status-card';
import { SessionList } from './features/sessions/session-list';
import { usePanel } from './stores/panel-context';

function ActionError(): ReactElement | null {
  const actionError = usePanel((s) => s.actionError);
  const dismissError = usePanel((s) => s.dismissError);
  if (!actionError) return null;
  return (
    <div className="notice" role="alert">
      <p>{actionError}</p>
      <button type="button" onClick={dismissError}>
        OK
      </button>
    </div>
  );
}

export function App(): ReactElement {
  const connection = usePanel((s) => s.connection);
  const problem = usePanel((s) => s.problem);
  const load = usePanel((s) => s.load);

  return (
    <main>
      <header>
        <h1>Sandpit</h1>
        <p className="muted">A safe place for your assistant to run code.</p>
      </header>
      {connection === 'loading' ? <p className="muted">Connecting to Sandpit…</p> : null}
      {connection === 'unreachable' ? (
        <section className="card card-alert" role="alert">
          <h2>Sandpit is not reachable</h2>
          <p>{problem}</p>
          <button type="button" onClick={() => void load()}>
            Try again
          </button>
        </section>
      ) : null}
      {connection === 'ready' ? (
        <>
          <ActionError />
          <EngineStatusCard />
          <SessionList />
        </>
      ) : null}
    </main>
  );
}
