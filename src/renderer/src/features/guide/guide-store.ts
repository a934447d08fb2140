import { createStore } from 'zustand/vanilla';
import type { StoreApi } from 'zustand/vanilla';
import type { SandpitClient, SandpitEvent } from '../../../../shared/api/client';
import type { AuditSummary } from '../../../../shared/domain/audit';

/**
 * The first-run guide: connect an assistant, let it run code, see it here. Its progress comes from data
 * (clients connected now, the activity log's rows from assistants); "dismissed" and "done" are remembered
 * in this browser so it stays away once finished, even after the log is pruned.
 */
export interface GuideState {
  loaded: boolean;
  /** An assistant is connected now (or has run code, which needs a connection). */
  connected: boolean;
  /** An assistant ran code through Sandpit. */
  ran: boolean;
  dismissed: boolean;
  /** The first assistant run happened while this window was open (Sessions says so once). */
  finishedHere: boolean;
  load: () => Promise<void>;
  /** Hides the "all set" note. */
  acknowledge: () => void;
  dismiss: () => void;
  reopen: () => void;
  applyEvent: (event: SandpitEvent) => void;
}

export type GuideStore = StoreApi<GuideState>;

export const GUIDE_DISMISSED_KEY = 'sandpit.guide.dismissed';
export const GUIDE_DONE_KEY = 'sandpit.guide.done';

/** Transports an assistant uses (the panel's own runs come over ipc or http). */
const ASSISTANT_TRANSPORTS: ReadonlySet<string> = new Set(['mcp-http', 'mcp-stdio', 'rest']);

export function isAssistantRow(row: Pick<AuditSummary, 'transport'>): boolean {
  return ASSISTANT_TRANSPORTS.has(row.transport);
}

/**
 * An assistant's code has run: its row has ended with the run's own outcome — not still running (or waiting
 * for the person's approval), not denied, not failed before it could run.
 */
export function assistantRan(row: Pick<AuditSummary, 'transport' | 'status'>): boolean {
  return isAssistantRow(row) && row.status !== 'running' && row.status !== 'denied' && row.status !== 'failed';
}

/** Whether the guide shows on the Sessions screen: not while loading, not once done or dismissed. */
export function guideShown(state: Pick<GuideState, 'loaded' | 'ran' | 'dismissed'>): boolean {
  return state.loaded && !state.ran && !state.dismissed;
}

type Storage = Pick<globalThis.Storage, 'getItem' | 'setItem' | 'removeItem'>;

function read(storage: Storage | undefined, key: string): boolean {
  try {
    return storage?.getItem(key) === '1';
  } catch {
    return false;
  }
}

function write(storage: Storage | undefined, key: string, on: boolean): void {
  try {
    if (on) storage?.setItem(key, '1');
    else storage?.removeItem(key);
  } catch {
    // Storage may be disabled: the guide then forgets when the page closes.
  }
}

export function createGuideStore(client: SandpitClient, storage?: Storage): GuideStore {
  return createStore<GuideState>()((set, get) => {
    const markRan = (live: boolean): void => {
      if (get().ran) return;
      write(storage, GUIDE_DONE_KEY, true);
      set({ ran: true, connected: true, finishedHere: live && get().loaded && !get().dismissed });
    };
    return {
      loaded: false,
      connected: false,
      ran: read(storage, GUIDE_DONE_KEY),
      dismissed: read(storage, GUIDE_DISMISSED_KEY),
      finishedHere: false,

      load: async () => {
        const [info, page] = await Promise.allSettled([client.call('connect.info'), client.call('audit.list', { limit: 200 })]);
        if (info.status === 'fulfilled' && info.value.clients.length > 0) set({ connected: true });
        if (page.status === 'fulfilled' && page.value.rows.some(assistantRan)) markRan(false);
        set({ loaded: true });
      },

      dismiss: () => {
        write(storage, GUIDE_DISMISSED_KEY, true);
        set({ dismissed: true });
      },

      acknowledge: () => set({ finishedHere: false }),

      reopen: () => {
        write(storage, GUIDE_DISMISSED_KEY, false);
        set({ dismissed: false });
      },

      applyEvent: (event) => {
        if (event.name === 'clients.changed') set({ connected: get().ran || event.payload.clients.length > 0 });
        else if (event.name === 'audit.appended' && assistantRan(event.payload)) markRan(true);
      },
    };
  });
}
