import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createClient } from '../../shared/api/client';
import { App } from './App';
import { createPanelTransport, keepToken } from './api/create-transport';
import { bindRouter } from './stores/history-router';
import { PanelContext } from './stores/panel-context';
import { connectApp, createAppStores, reloadAll } from './stores/app-stores';
import './styles.css';

function localStore(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

const transport = createPanelTransport();
const client = createClient(transport);
const stores = createAppStores(client, { ...(localStore() ? { storage: localStore() } : {}) });
connectApp(stores, client);

/** A panel link pasted into this tab (or a new one made here): its token is used at once, no reload. */
const adoptToken =
  transport.kind === 'http'
    ? (token: string): void => {
        keepToken(window, token);
        client.setToken(token);
        void stores.panel.getState().retryAccess();
        reloadAll(stores);
      }
    : undefined;
bindRouter(stores.panel, { location: window.location, history: window.history, document, addEventListener: (t, l) => window.addEventListener(t, l), removeEventListener: (t, l) => window.removeEventListener(t, l) }, adoptToken ? { onToken: adoptToken } : {});

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <PanelContext value={{ client, stores, ...(adoptToken ? { adoptToken } : {}) }}>
      <App />
    </PanelContext>
  </StrictMode>,
);
