import { createStore } from 'zustand/vanilla';
import type { StoreApi } from 'zustand/vanilla';
import type { SandpitClient, SandpitEvent } from '../../../../shared/api/client';
import type { ConnectInfo } from '../../../../shared/domain/connect';
import type { AssistantChange, AssistantId, AssistantStatus } from '../../../../shared/domain/assistants';
import { isUnavailable } from '../../lib/unavailable';
import { plainError } from '../../stores/panel-store';

export interface ConnectState {
  status: 'idle' | 'loading' | 'ready' | 'error' | 'unavailable';
  problem?: string;
  info?: ConnectInfo;
  /** The access token once revealed (kept only in memory). */
  token?: string;
  /** The web panel's link with its own token, once asked for (kept only in memory). */
  panelLink?: string;
  load: () => Promise<void>;
  /** Fetches the panel link (to copy it); resolves with it, or undefined when there is none. */
  loadPanelLink: () => Promise<string | undefined>;
  /** Makes a new panel link (the old one stops working at once); resolves with the new token for this tab. */
  rotatePanelLink: () => Promise<string | undefined>;
  reveal: () => Promise<void>;
  hide: () => void;
  rotate: () => Promise<void>;
  /** The assistants Connect knows, found on this computer or not (loaded with the screen). */
  assistants?: AssistantStatus[];
  /** The last Connect or Disconnect per assistant: what changed, in plain words and as the file's lines. */
  changes: Partial<Record<AssistantId, AssistantChange>>;
  /** Why the last Connect or Disconnect of an assistant was refused. */
  refusals: Partial<Record<AssistantId, string>>;
  /** The assistant whose file is being written now. */
  busy?: AssistantId;
  loadAssistants: () => Promise<void>;
  connectAssistant: (id: AssistantId) => Promise<void>;
  disconnectAssistant: (id: AssistantId) => Promise<void>;
  applyEvent: (event: SandpitEvent) => void;
}

export type ConnectStore = StoreApi<ConnectState>;

export function createConnectStore(client: SandpitClient): ConnectStore {
  return createStore<ConnectState>()((set, get) => {
    /** Connect or Disconnect one assistant; the row then shows the new state, what changed, or why it was refused. */
    const changeAssistant = async (
      id: AssistantId,
      method: 'connect.connectAssistant' | 'connect.disconnectAssistant',
    ): Promise<void> => {
      set({ busy: id, refusals: { ...get().refusals, [id]: undefined } });
      try {
        const change = await client.call(method, { id });
        const assistants = get().assistants?.map((a) => (a.id === id ? change.status : a));
        set({ changes: { ...get().changes, [id]: change }, ...(assistants ? { assistants } : {}) });
      } catch (error) {
        set({ refusals: { ...get().refusals, [id]: plainError(error) } });
        await get().loadAssistants();
      } finally {
        set({ busy: undefined });
      }
    };
    return {
      status: 'idle',
      changes: {},
      refusals: {},

      loadAssistants: async () => {
        try {
          set({ assistants: (await client.call('connect.assistants')).assistants });
        } catch (error) {
          set({ problem: plainError(error) });
        }
      },

      connectAssistant: async (id) => changeAssistant(id, 'connect.connectAssistant'),
      disconnectAssistant: async (id) => changeAssistant(id, 'connect.disconnectAssistant'),

      load: async () => {
        if (get().status === 'idle') set({ status: 'loading' });
        try {
          set({ status: 'ready', problem: undefined, info: await client.call('connect.info') });
        } catch (error) {
          set(isUnavailable(error) ? { status: 'unavailable' } : { status: 'error', problem: plainError(error) });
        }
      },

      reveal: async () => {
        try {
          set({ token: (await client.call('connect.revealToken')).token, problem: undefined });
        } catch (error) {
          set({ problem: plainError(error) });
        }
      },

      hide: () => set({ token: undefined }),

      loadPanelLink: async () => {
        try {
          const { link } = await client.call('connect.panelLink');
          set({ panelLink: link, problem: undefined });
          return link;
        } catch (error) {
          set({ problem: plainError(error) });
          return undefined;
        }
      },

      rotatePanelLink: async () => {
        try {
          const { link, token } = await client.call('connect.rotatePanelLink');
          set({ panelLink: link, problem: undefined });
          return token;
        } catch (error) {
          set({ problem: plainError(error) });
          return undefined;
        }
      },

      rotate: async () => {
        try {
          const { token } = await client.call('connect.rotateToken');
          set({ token, problem: undefined });
        } catch (error) {
          set({ problem: plainError(error) });
        }
      },

      applyEvent: (event) => {
        const info = get().info;
        if (event.name !== 'clients.changed' || !info) return;
        const { clients } = event.payload;
        set({ info: { ...info, clients, seenClients: [...new Set([...info.seenClients, ...clients.map((c) => c.name)])] } });
      },
    };
  });
}
