import { createStore } from 'zustand/vanilla';
import type { StoreApi } from 'zustand/vanilla';
import type { SandpitClient, SandpitEvent } from '../../../shared/api/client';
import type { EngineStatus } from '../../../shared/api/contract';
import { isSandpitError } from '../../../shared/api/errors';
import type { SessionInfo } from '../../../shared/domain/session';
import type { Language } from '../../../shared/domain/runtimes';

/** The screens of the left navigation. */
export const SCREENS = ['sessions', 'environments', 'artifacts', 'activity', 'connect', 'settings'] as const;
export type Screen = (typeof SCREENS)[number];

/** How a new session starts: from a language's plain image, or from an environment. */
export type NewSessionChoice = { language: Language } | { environment: string };

export interface PanelState {
  /** Whether the panel reached the core at all (not whether Docker runs: that is `engine`). */
  connection: 'loading' | 'ready' | 'unreachable';
  /** Why the core could not be reached, in plain words. */
  problem?: string;
  engine?: EngineStatus;
  sessions: SessionInfo[];
  /** The last failed action (start/stop a session), in plain words, until dismissed. */
  actionError?: string;
  /** Ids of sessions with a stop or restart in flight, and 'new' while a session is being created. */
  pending: string[];
  /** The screen shown, and the session opened on the Sessions screen. */
  screen: Screen;
  openSessionId?: string;

  load: () => Promise<void>;
  checkEngine: () => Promise<void>;
  /** Starts a session; resolves with it, or undefined when it failed (actionError says why). */
  createSession: (choice: NewSessionChoice) => Promise<SessionInfo | undefined>;
  stopSession: (sessionId: string) => Promise<void>;
  restartSession: (sessionId: string) => Promise<void>;
  navigate: (screen: Screen, sessionId?: string) => void;
  /** Shows an error from any screen in the shared notice. */
  reportError: (error: unknown) => void;
  applyEvent: (event: SandpitEvent) => void;
  dismissError: () => void;
}

export type PanelStore = StoreApi<PanelState>;

const NO_TOKEN =
  'This page has no valid access token. Open the panel with the link Sandpit printed when it started (it ends in #token=…), or copy the link with the token from the Connect screen of the desktop app.';

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
export type PanelSnapshot = Partial<
  Pick<PanelState, 'connection' | 'problem' | 'engine' | 'sessions' | 'actionError' | 'screen' | 'openSessionId'>
>;

export function createPanelStore(client: SandpitClient, initial: PanelSnapshot = {}): PanelStore {
  return createStore<PanelState>()((set, get) => {
    const track = async <T>(key: string, run: () => Promise<T>): Promise<T | undefined> => {
      set({ pending: [...get().pending, key], actionError: undefined });
      try {
        return await run();
      } catch (error) {
        set({ actionError: plainError(error) });
        return undefined;
      } finally {
        set({ pending: get().pending.filter((k) => k !== key) });
      }
    };

    return {
      connection: 'loading',
      sessions: [],
      pending: [],
      screen: 'sessions',
      ...initial,

      load: async () => {
        try {
          const [engine, { sessions }] = await Promise.all([
            client.call('engine.status'),
            client.call('sessions.list'),
          ]);
          set({ connection: 'ready', problem: undefined, engine, sessions: sorted(sessions) });
        } catch (error) {
          set({
            connection: 'unreachable',
            problem: isSandpitError(error, 'UNAUTHORIZED') ? NO_TOKEN : plainError(error),
          });
        }
      },

      checkEngine: async () => {
        try {
          set({ engine: await client.call('engine.status') });
        } catch (error) {
          set({ actionError: plainError(error) });
        }
      },

      createSession: (choice) =>
        track('new', async () => {
          const session = await client.call('sessions.create', choice);
          set({ sessions: upsert(get().sessions, session) });
          return session;
        }),

      stopSession: async (sessionId) => {
        await track(sessionId, async () => {
          await client.call('sessions.stop', { sessionId });
        });
      },

      restartSession: async (sessionId) => {
        await track(sessionId, async () => {
          const session = await client.call('sessions.restart', { sessionId });
          set({ sessions: upsert(get().sessions, session) });
        });
      },

      navigate: (screen, sessionId) => {
        set({ screen, openSessionId: sessionId });
      },

      reportError: (error) => {
        set({ actionError: plainError(error) });
      },

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
