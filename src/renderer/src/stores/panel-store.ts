import { createStore } from 'zustand/vanilla';
import type { StoreApi } from 'zustand/vanilla';
import type { SandpitClient, SandpitEvent } from '../../../shared/api/client';
import type { EngineStatus } from '../../../shared/api/contract';
import type { Language, SessionInfo } from '../../../shared/domain/session';

export interface PanelState {
  /** Whether the panel reached the core at all (not whether Docker runs: that is `engine`). */
  connection: 'loading' | 'ready' | 'unreachable';
  /** Why the core could not be reached, in plain words. */
  problem?: string;
  engine?: EngineStatus;
  sessions: SessionInfo[];
  /** The last failed action (start/stop a session), in plain words, until dismissed. */
  actionError?: string;
  /** Ids of sessions with a stop in flight, and 'new' while a session is being created. */
  pending: string[];

  load: () => Promise<void>;
  checkEngine: () => Promise<void>;
  createSession: (language: Language) => Promise<void>;
  stopSession: (sessionId: string) => Promise<void>;
  applyEvent: (event: SandpitEvent) => void;
  dismissError: () => void;
}

export type PanelStore = StoreApi<PanelState>;

export function plainError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function sorted(sessions: SessionInfo[]): SessionInfo[] {
  return [...sessions].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

function upsert(sessions: SessionInfo[], session: SessionInfo): SessionInfo[] {
  return sorted([...sessions.filter((s) => s.id !== session.id), session]);
}

/** The data part of the state, e.g. to start from a known snapshot. */
export type PanelSnapshot = Partial<Pick<PanelState, 'connection' | 'problem' | 'engine' | 'sessions' | 'actionError'>>;

export function createPanelStore(client: SandpitClient, initial: PanelSnapshot = {}): PanelStore {
  return createStore<PanelState>()((set, get) => {
    const track = async (key: string, run: () => Promise<void>): Promise<void> => {
      set({ pending: [...get().pending, key], actionError: undefined });
      try {
        await run();
      } catch (error) {
        set({ actionError: plainError(error) });
      } finally {
        set({ pending: get().pending.filter((k) => k !== key) });
      }
    };

    return {
      connection: 'loading',
      sessions: [],
      pending: [],
      ...initial,

      load: async () => {
        try {
          const [engine, { sessions }] = await Promise.all([
            client.call('engine.status'),
            client.call('sessions.list'),
          ]);
          set({ connection: 'ready', problem: undefined, engine, sessions: sorted(sessions) });
        } catch (error) {
          set({ connection: 'unreachable', problem: plainError(error) });
        }
      },

      checkEngine: async () => {
        try {
          set({ engine: await client.call('engine.status') });
        } catch (error) {
          set({ actionError: plainError(error) });
        }
      },

      createSession: (language) =>
        track('new', async () => {
          const session = await client.call('sessions.create', { language });
          set({ sessions: upsert(get().sessions, session) });
        }),

      stopSession: (sessionId) =>
        track(sessionId, async () => {
          await client.call('sessions.stop', { sessionId });
        }),

      applyEvent: (event) => {
        switch (event.name) {
          case 'engine.status':
            set({ engine: event.payload });
            break;
          case 'session.updated':
            set({ sessions: upsert(get().sessions, event.payload) });
            break;
          case 'session.removed':
            set({ sessions: get().sessions.filter((s) => s.id !== event.payload.sessionId) });
            break;
          default:
            break;
        }
      },

      dismissError: () => {
        set({ actionError: undefined });
      },
    };
  });
}

/** Follows live events, then loads the first snapshot. Returns the function that stops following. */
export function connectPanel(store: PanelStore, client: SandpitClient): () => void {
  const unsubscribe = client.subscribe((event) => store.getState().applyEvent(event));
  void store.getState().load();
  return unsubscribe;
}
