import { useEffect, useState } from 'react';
import type { ReactElement } from 'react';
import { useAppStore, usePanel } from '../../stores/panel-context';
import { useEngineCandidates } from './engine-candidates';

/** The engine's message without the fix when it repeats it (the fix has its own line). */
function withoutFix(message: string | undefined, fix: string | undefined): string {
  if (!message) return '';
  return fix ? message.split(fix).join('').replace(/\s+/g, ' ').trim() : message;
}

/** Other engines that answer now, and a way back to finding Docker by itself: the second fix. */
function AddressFixes({ fromSetting }: { fromSetting: boolean }): ReactElement {
  const { engines } = useEngineCandidates();
  const update = useAppStore('settings', (s) => s.update);
  const checkEngine = usePanel((s) => s.checkEngine);
  const navigate = usePanel((s) => s.navigate);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  const answering = (engines ?? []).filter((e) => e.reachable && !e.inUse).filter((e, i, all) => all.findIndex((x) => x.host === e.host) === i);

  const apply = async (dockerHost: string | null): Promise<void> => {
    setBusy(true);
    setProblem(undefined);
    const refused = await update({ dockerHost });
    setBusy(false);
    if (refused) setProblem(refused);
    else await checkEngine();
  };

  return (
    <div className="fix">
      <h3>If the address is wrong: use another one</h3>
      {engines === undefined ? <p className="muted small">Looking for Docker on this computer…</p> : null}
      {answering.length > 0 ? (
        <ul className="list">
          {answering.map((engine) => (
            <li key={engine.host} className="list-row">
              <span>
                Docker {engine.version ?? ''} answers at <code>{engine.host}</code> <span className="muted small">({engine.source})</span>
              </span>
              <button type="button" disabled={busy} onClick={() => void apply(engine.host)} data-testid="engine-card-use" data-host={engine.host}>
                Use this one
              </button>
            </li>
          ))}
        </ul>
      ) : engines !== undefined ? (
        <p className="muted small">No other Docker answers on this computer right now.</p>
      ) : null}
      <span className="actions">
        {fromSetting ? (
          <button type="button" className="secondary" disabled={busy} onClick={() => void apply(null)} data-testid="engine-card-reset">
            Find Docker by itself again
          </button>
        ) : null}
        <button type="button" className="secondary" onClick={() => navigate('settings')} data-testid="engine-card-settings">
          Change the address in Settings
        </button>
      </span>
      {problem ? (
        <p className="field-error" role="alert" data-testid="engine-card-problem">
          {problem}
        </p>
      ) : null}
    </div>
  );
}

/** Sandpit cannot reach Docker: where it looked (and why there), and both fixes — start Docker, or change the address. */
export function EngineStatusCard(): ReactElement | null {
  const engine = usePanel((s) => s.engine);
  const checkEngine = usePanel((s) => s.checkEngine);
  const setting = useAppStore('settings', (s) => s.view?.dockerHost);
  const settingsIdle = useAppStore('settings', (s) => s.status === 'idle');
  const loadSettings = useAppStore('settings', (s) => s.load);
  const [checking, setChecking] = useState(false);
  const fromSetting = engine?.source === 'the Sandpit setting';
  // The address as the person typed it in Settings (the engine reports the socket path it reached for).
  useEffect(() => {
    if (fromSetting && settingsIdle) void loadSettings();
  }, [fromSetting, settingsIdle, loadSettings]);
  if (!engine || engine.state !== 'down') return null;
  const detail = withoutFix(engine.message, engine.fix);

  return (
    <section className="card card-alert" aria-labelledby="engine-title" role="alert" data-testid="engine-card">
      <h2 id="engine-title">
        <span className="dot dot-down" aria-hidden="true" /> Sandpit cannot reach Docker
      </h2>
      <p data-testid="engine-card-address">
        Sandpit looks for Docker at <code>{fromSetting && setting ? setting : engine.endpoint}</code>
        {engine.source ? ` (${fromSetting ? 'the Docker address set in Settings' : `found through ${engine.source}`})` : ''}, and nothing answers
        there. Sessions cannot start until it does.
      </p>
      <div className="fixes">
        <div className="fix">
          <h3>If Docker is not running: start it</h3>
          <p data-testid="engine-card-start-fix">{engine.fix ?? 'Start Docker (Docker Desktop, or the Docker service on Linux).'}</p>
        </div>
        <AddressFixes fromSetting={fromSetting} />
      </div>
      <div className="row">
        <span className="muted small">Sandpit keeps trying by itself; this page updates as soon as Docker answers.</span>
        <button
          type="button"
          className="secondary"
          disabled={checking}
          onClick={() => {
            setChecking(true);
            void checkEngine().finally(() => setChecking(false));
          }}
          data-testid="engine-card-check"
        >
          {checking ? 'Checking…' : 'Check again'}
        </button>
      </div>
      {detail ? (
        <details>
          <summary className="small">Details</summary>
          <p className="small muted pre-wrap">{detail}</p>
        </details>
      ) : null}
    </section>
  );
}
