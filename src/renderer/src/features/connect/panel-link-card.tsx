import { useEffect, useState } from 'react';
import type { ReactElement } from 'react';
import { CopyButton } from '../../components/copy-button';
import { ConfirmModal } from '../../components/modal';
import { useAdoptToken, useAppStore, useClient } from '../../stores/panel-context';

/** The link that opens this panel in a browser (with its own key): copy it, or replace it when it got out. */
export function PanelLinkCard(): ReactElement | null {
  const client = useClient();
  const link = useAppStore('connect', (s) => s.panelLink);
  const serving = useAppStore('connect', (s) => s.info?.serving);
  const loadPanelLink = useAppStore('connect', (s) => s.loadPanelLink);
  const rotatePanelLink = useAppStore('connect', (s) => s.rotatePanelLink);
  const adoptToken = useAdoptToken();
  const [shown, setShown] = useState(false);
  const [confirm, setConfirm] = useState(false);
  const [made, setMade] = useState(false);

  useEffect(() => {
    void loadPanelLink();
  }, [loadPanelLink]);

  if (!serving) return null;
  const masked = link?.replace(/#token=.*/, '#token=••••••••••••');
  return (
    <section className="card" aria-labelledby="panel-link-title" data-testid="connect-panel-link-card">
      <h2 id="panel-link-title">Open this panel in a browser</h2>
      <p className="muted">
        This link opens the panel in any browser on this computer. It keeps working when Sandpit restarts. Anyone with it can use
        Sandpit as you, so keep it to yourself.
      </p>
      <div className="kv">
        <code data-testid="connect-panel-link">{shown ? link : masked}</code>
        <span className="actions">
          <CopyButton text={link ?? ''} label="Copy link" testId="connect-panel-url-copy" />
          <button type="button" className="secondary" onClick={() => setShown(!shown)} data-testid="connect-panel-link-show">
            {shown ? 'Hide' : 'Show'}
          </button>
          <button type="button" className="secondary danger-text" onClick={() => setConfirm(true)} data-testid="connect-panel-link-rotate">
            Make a new link
          </button>
        </span>
      </div>
      {made ? (
        <p className="muted small" role="status" data-testid="connect-panel-link-made">
          A new link is in use: this {client.transport === 'http' ? 'tab' : 'window'} already uses it; other tabs open with the old link need the new one.
        </p>
      ) : null}
      {confirm ? (
        <ConfirmModal
          title="Make a new panel link?"
          testId="confirm-panel-rotate"
          confirmLabel="Make a new link"
          danger
          onClose={() => setConfirm(false)}
          onConfirm={() => {
            setConfirm(false);
            void rotatePanelLink().then((token) => {
              if (!token) return;
              adoptToken?.(token);
              setMade(true);
            });
          }}
        >
          <p>
            The old link stops working at once, in every browser tab that has it. This {client.transport === 'http' ? 'tab switches' : 'window is not affected; it does not use the link'}
            {client.transport === 'http' ? ' to the new link by itself' : ''}. Assistants are not affected.
          </p>
        </ConfirmModal>
      ) : null}
    </section>
  );
}
