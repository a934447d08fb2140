import { createStore } from 'zustand/vanilla';
import type { StoreApi } from 'zustand/vanilla';
import type { SandpitClient, SandpitEvent } from '../../../shared/api/client';
import type { EngineStatus } from '../../../shared/domain/engine';
import { isSandpitError } from '../../../shared/api/errors';
import type { AccessProblem } from '../../../shared/api/transport';
import type { SessionInfo } from '../../../shared/domain/session';
import type { Language } from '../../../shared/domain/languages';
import { accessWords } from '../features/shell/access-words';
import { sameRoute } from './routes';
import type { Route, Screen } from './routes';

export { SCREENS } from './routes';
export type { Route, Screen } from './routes';

/** How a new session starts: from a language's plain image, or from an environment. */
export type NewSessionChoice = ({ language: Language } | { environment: string }) & { keep?: boolean; secrets?: string[] };

export interface PanelState {
  /** Whether the panel reached the core at all (not whether Docker runs: that is `engine`). */
  connection: 'loading' | 'ready' | 'unreachable';
  /** Why the core could not be reached, in plain words. */
  problem?: string;
  /** Set when the server refused this page's token, and why (web panel only). */
  access?: AccessProblem;
  /** `lost` while the event stream is silent: what the panel shows may be out of date (it reconnects by itself). */
  link: 'up' | 'lost';
  engine?: EngineStatus;
  sessions: SessionInfo[];
  /** The last failed action (start/stop a session), in plain words, until dismissed. */
  actionError?: string;
  /** Ids of sessions with a stop or restart in flight, and 'new' while a session is being created. */
  pending: string[];
  /** The screen shown, and the session opened on the Sessions screen. */
  screen: Screen;
  openSessionId?: string;
  /** Whether a screen holds changes that leaving would lose (Settings): navigation asks first. */
  blocked: boolean;
  /** Where the person wanted to go while `blocked`: the leave-guard dialog asks about it. */
  pendingRoute?: Route;

  load: () => Promise<void>;
  checkEngine: () => Promise<void>;
  /** Starts a session; resolves with it, or undefined when it failed (actionError says why). */
  createSession: (choice: NewSessionChoice) => Promise<SessionInfo | undefined>;
  stopSession: (sessionId: string) => Promise<void>;
  restartSession: (sessionId: string) => Promise<void>;
  /** Keeps a session across a restart of Sandpit, or no longer. */
  setKept: (sessionId: string, keep: boolean) => Promise<void>;
  /** Goes to a screen (asks first while `blocked`). */
  navigate: (screen: Screen, sessionId?: string) => void;
  /** Shows a route (Back, Forward, a typed address); false when it waits for the leave guard instead. */
  applyRoute: (route: Route) => boolean;
  setBlocked: (blocked: boolean) => void;
  /** The leave guard's answers: go where the person wanted (changes dropped by the caller), or stay. */
  confirmLeave: () => void;
  cancelLeave: () => void;
  setLink: (up: boolean) => void;
  refused: (problem: AccessProblem) => void;
  /** A new token is in use (a pasted link, a new link made here): forget the refusal and load again. */
  retryAccess: () => Promise<void>;
  /** Shows an error from any screen in the shared notice. */
  reportError: (error: unknown) => void;
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

function routeOf(state: Pick<PanelState, 'screen' | 'openSessionId'>): Route {
  return state.openSessionId ? { screen: state.screen, sessionId: state.openSessionId } : { screen: state.screen };
}

/** The data part of the state, e.g. to start from a known snapshot. */
export type PanelSnapshot = Partial<
  Pick<
    PanelState,
    'connection' | 'problem' | 'access' | 'link' | 'engine' | 'sessions' | 'actionError' | 'screen' | 'openSessionId' | 'blocked'
  >
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
    const show = (route: Route): void => set({ screen: route.screen, openSessionId: route.sessionId, pendingRoute: undefined });
    // The engine's status comes two ways that can cross: an answer, and the live event of each change. An event that
    // came after the question was asked is at least as new as the answer, so that answer is not shown over it.
    let engineEvents = 0;
    const askEngine = async (): Promise<{ engine: EngineStatus } | Record<string, never>> => {
      const seen = engineEvents;
      const engine = await client.call('engine.status');
      return engineEvents === seen ? { engine } : {};
    };

    return {
      connection: 'loading',
      link: 'up',
      sessions: [],
      pending: [],
      screen: 'sessions',
      blocked: false,
      ...initial,

      load: async () => {
        try {
          const [engine, { sessions }] = await Promise.all([askEngine(), client.call('sessions.list')]);
          set({ connection: 'ready', problem: undefined, access: undefined, ...engine, sessions: sorted(sessions) });
        } catch (error) {
          if (isSandpitError(error, 'UNAUTHORIZED')) {
            const access = get().access ?? 'invalid';
            set({ connection: 'unreachable', access, problem: accessWords(access).text });
          } else {
            set({ connection: 'unreachable', problem: plainError(error) });
          }
        }
      },

      checkEngine: async () => {
        try {
          set(await askEngine());
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

      setKept: async (sessionId, keep) => {
        await track(sessionId, async () => {
          const session = await client.call('sessions.setKept', { sessionId, keep });
          set({ sessions: upsert(get().sessions, session) });
        });
      },

      navigate: (screen, sessionId) => {
        get().applyRoute(sessionId ? { screen, sessionId } : { screen });
      },

      applyRoute: (route) => {
        const current = routeOf(get());
        if (sameRoute(route, current)) return true;
        // Moving within the Sessions screen loses nothing; leaving a screen with changes asks first.
        if (get().blocked && route.screen !== current.screen) {
          set({ pendingRoute: route });
          return false;
        }
        show(route);
        return true;
      },

      setBlocked: (blocked) => set({ blocked }),

      confirmLeave: () => {
        const route = get().pendingRoute;
        set({ blocked: false, pendingRoute: undefined });
        if (route) show(route);
      },

      cancelLeave: () => set({ pendingRoute: undefined }),

      setLink: (up) => set({ link: up ? 'up' : 'lost' }),

      refused: (problem) => {
        set({ access: problem });
        // Only a refusal after the panel was shown needs the screen to change; `load` says it otherwise.
        if (get().connection === 'ready') set({ connection: 'unreachable', problem: accessWords(problem).text });
      },

      retryAccess: async () => {
        set({ access: undefined, problem: undefined, connection: get().connection === 'ready' ? 'ready' : 'loading' });
        await get().load();
      },

      reportError: (error) => {
        set({ actionError: plainError(error) });
      },

      applyEvent: (event) => {
        switch (event.name) {
          case 'engine.status':
            engineEvents += 1;
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

/**
 * Follows live events, the link and the token's acceptance, then loads the first snapshot. When the link
 * comes back after it was lost, `onBack` reloads what may have been missed. Returns the function that stops.
 */
export function connectPanel(store: PanelStore, client: SandpitClient, onBack: () => void = () => undefined): () => void {
  const unsubscribe = client.subscribe((event) => store.getState().applyEvent(event));
  const stopLink = client.onLink((up) => {
    const state = store.getState();
    const wasLost = state.link === 'lost' || state.connection === 'unreachable';
    state.setLink(up);
    if (up && wasLost && state.access === undefined) {
      void state.load();
      onBack();
    }
  });
  const stopRefused = client.onRefused((problem) => store.getState().refused(problem));
  void store.getState().load();
  return () => {
    unsubscribe();
    stopLink();
    stopRefused();
  };
}
