import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createClient } from '../../shared/api/client';
import { App } from './App';
import { createPanelTransport } from './api/create-transport';
import { PanelContext } from './stores/panel-context';
import { connectApp, createAppStores } from './stores/app-stores';
import './styles.css';

const transport = createPanelTransport();
const client = createClient(transport);
const stores = createAppStores(client);
connectApp(stores, client);

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <PanelContext value={{ client, stores }}>
      <App />
    </PanelContext>
  </StrictMode>,
);
