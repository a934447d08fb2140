import type { SandpitConfig } from '../config';
import { assistantConfigs } from '../connect/assistant-configs';
import type { ServedEndpoint } from '../connect/served-endpoint';
import { stdioCommand } from '../connect/stdio-command';
import type { ClientRegistry } from '../connect/client-registry';
import { AssistantConnector } from '../connect/assistant-connector';
import { userPlaces } from '../connect/assistant-targets';
import type { UserPlaces } from '../connect/assistant-targets';
import type { Handlers } from './api-types';

type ConnectMethods =
  | 'connect.info'
  | 'connect.revealToken'
  | 'connect.rotateToken'
  | 'connect.panelLink'
  | 'connect.rotatePanelLink'
  | 'connect.assistants'
  | 'connect.connectAssistant'
  | 'connect.disconnectAssistant';

export interface ConnectServices {
  endpoint: ServedEndpoint;
  clients: ClientRegistry;
  /** Absolute path of bin/sandpit.mjs for the stdio command; default: the repository's. */
  sandpitBin?: string;
  /** Where the person's assistants keep their settings; default: this computer's (the home folder of this process). */
  places?: UserPlaces;
}

/** The Connect screen: endpoints, copy-paste configs, connected clients; the token (for the panel only, by the policy table). */
export function connectHandlers(config: SandpitConfig, services: ConnectServices): Pick<Handlers, ConnectMethods> {
  const { endpoint, clients } = services;
  const stdio = stdioCommand({ home: config.home, ...(services.sandpitBin ? { bin: services.sandpitBin } : {}) });
  const connector = new AssistantConnector({ dataHome: config.home, places: services.places ?? userPlaces(), stdio });
  return {
    'connect.info': async () => {
      const base = endpoint.url ?? `http://127.0.0.1:${config.port}`;
      const mcpUrl = `${base}/mcp`;
      return {
        serving: endpoint.url !== undefined,
        mcpUrl,
        panelUrl: `${base}/`,
        tokenFile: endpoint.tokenFile,
        stdioCommand: stdio,
        configs: assistantConfigs(stdio, mcpUrl),
        clients: clients.list(),
        seenClients: clients.seen(),
      };
    },
    'connect.revealToken': async () => ({ token: await endpoint.token() }),
    'connect.rotateToken': async () => ({ token: await endpoint.rotate() }),
    'connect.panelLink': async () => {
      const link = await endpoint.panelLink();
      return link === undefined ? {} : { link };
    },
    'connect.rotatePanelLink': async () => endpoint.rotatePanel(),
    'connect.assistants': async () => ({ assistants: await connector.list() }),
    'connect.connectAssistant': async ({ id }) => connector.connect(id),
    'connect.disconnectAssistant': async ({ id }) => connector.disconnect(id),
  };
}
