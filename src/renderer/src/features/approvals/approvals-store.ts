import { createStore } from 'zustand/vanilla';
import type { StoreApi } from 'zustand/vanilla';
import type { SandpitClient, SandpitEvent } from '../../../../shared/api/client';
import type { Approval, ApprovalDecision, ApprovalOutcome } from '../../../../shared/domain/approval';
import { isUnavailable } from '../../lib/unavailable';
import { plainError } from '../../stores/panel-store';

/** A request that just ended, shown briefly (e.g. "expired"). */
export interface ApprovalEnded {
  id: string;
  outcome: ApprovalOutcome;
  client: string;
  /** The person answered it in the assistant's chat (approvals in the chat). */
  inChat?: boolean;
}

export interface ApprovalsState {
  available: boolean;
  /** Requests waiting for an answer, oldest first. */
  pending: Approval[];
  /** Ids with an answer in flight. */
  answering: string[];
  /** Requests that ended without an answer from this panel (expired, cancelled, answered elsewhere). */
  ended: ApprovalEnded[];
  problem?: string;
  load: () => Promise<void>;
  respond: (id: string, decision: ApprovalDecision) => Promise<void>;
  dismissEnded: (id: string) => void;
  applyEvent: (event: SandpitEvent) => void;
}

export type ApprovalsStore = StoreApi<ApprovalsState>;

function byCreation(list: Approval[]): Approval[] {
  return [...list].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

export function createApprovalsStore(client: SandpitClient): ApprovalsStore {
  return createStore<ApprovalsState>()((set, get) => ({
    available: true,
    pending: [],
    answering: [],
    ended: [],

    load: async () => {
      try {
        const { pending } = await client.call('approvals.list');
        set({ pending: byCreation(pending), available: true });
      } catch (error) {
        if (isUnavailable(error)) set({ available: false });
      }
    },

    respond: async (id, decision) => {
      set({ answering: [...get().answering, id], problem: undefined });
      try {
        await client.call('approvals.respond', { id, decision });
        set({ pending: get().pending.filter((a) => a.id !== id) });
      } catch (error) {
        set({ problem: plainError(error) });
        // The request may have expired meanwhile: the list tells.
        await get().load();
      } finally {
        set({ answering: get().answering.filter((x) => x !== id) });
      }
    },

    dismissEnded: (id) => set({ ended: get().ended.filter((e) => e.id !== id) }),

    applyEvent: (event) => {
      if (event.name === 'approval.requested') {
        set({ pending: byCreation([...get().pending.filter((a) => a.id !== event.payload.id), event.payload]) });
      } else if (event.name === 'approval.resolved') {
        const { id, decision, answeredIn } = event.payload;
        const request = get().pending.find((a) => a.id === id);
        const answeredHere = get().answering.includes(id);
        set({ pending: get().pending.filter((a) => a.id !== id) });
        if (request && !answeredHere && (decision === 'expired' || decision === 'cancelled')) {
          set({ ended: [...get().ended, { id, outcome: decision, client: request.client }].slice(-5) });
        } else if (request && !answeredHere && answeredIn === 'chat') {
          set({ ended: [...get().ended, { id, outcome: decision, client: request.client, inChat: true }].slice(-5) });
        }
      }
    },
  }));
}
