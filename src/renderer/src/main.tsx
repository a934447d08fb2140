import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createClient } from '../../shared/api/client';
import { App } from './App';
import { createPanelTransport } from './api/create-transport';
import { PanelContext } from './stores/panel-context';
import { connectPanel, createPanelStore } from './stores/panel-store';
import './styles.css';

const client = createClient(createPanelTransport());
const store = createPanelStore(client);
connectPanel(store, client);

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <PanelContext value={store}>
      <App />
    </PanelContext>
  </StrictMode>,
);
