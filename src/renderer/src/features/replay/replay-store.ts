import { createStore } from 'zustand/vanilla';
import type { StoreApi } from 'zustand/vanilla';
import type { SandpitClient, SandpitEvent } from '../../../../shared/api/client';
import type { ReplayView } from '../../../../shared/domain/replay';
import { plainError } from '../../stores/panel-store';

export interface ReplayState {
  /** Replays by id, as the last `replay.updated` (or the start's answer) said. */
  replays: Record<string, ReplayView>;
  /** The newest replay of each original session. */
  latest: Record<string, string>;
  /** Sessions whose replay is being asked for, and why one could not start. */
  starting: Record<string, boolean>;
  problems: Record<string, string>;
  start: (sessionId: string) => Promise<void>;
  applyEvent: (event: SandpitEvent) => void;
}

export type ReplayStore = StoreApi<ReplayState>;

/** Replays the person started from Activity, followed live. */
export function createReplayStore(client: SandpitClient): ReplayStore {
  return createStore<ReplayState>()((set, get) => {
    const keep = (view: ReplayView): void => {
      const known = get().replays[view.id];
      // Events can overtake the start's answer: never go back to an earlier view.
      if (known && progress(known) > progress(view)) return;
      set({ replays: { ...get().replays, [view.id]: view }, latest: { ...get().latest, [view.originalSessionId]: view.id } });
    };
    return {
      replays: {},
      latest: {},
      starting: {},
      problems: {},
      start: async (sessionId) => {
        const { [sessionId]: _dropped, ...problems } = get().problems;
        set({ starting: { ...get().starting, [sessionId]: true }, problems });
        try {
          keep(await client.call('audit.replay', { sessionId }));
        } catch (error) {
          set({ problems: { ...get().problems, [sessionId]: plainError(error) } });
        } finally {
          set({ starting: { ...get().starting, [sessionId]: false } });
        }
      },
      applyEvent: (event) => {
        if (event.name === 'replay.updated') keep(event.payload);
      },
    };
  });
}

const STATE_ORDER: Record<ReplayView['state'], number> = { starting: 0, running: 1, done: 2, failed: 2 };

/** How far a view has got: its state, then how many runs have ended. */
function progress(view: ReplayView): number {
  const ended = view.runs.filter((r) => r.outcome !== 'pending' && r.outcome !== 'running').length;
  const running = view.runs.filter((r) => r.outcome === 'running').length;
  return STATE_ORDER[view.state] * 1_000_000 + ended * 2 + running;
}
