import { createStore } from 'zustand/vanilla';
import type { StoreApi } from 'zustand/vanilla';
import type { SandpitClient, SandpitEvent } from '../../../../shared/api/client';
import type { AuditExportFormat, AuditFilters, AuditSummary, AuditVerifyResult } from '../../../../shared/domain/audit';
import { isUnavailable } from '../../lib/unavailable';
import { plainError } from '../../stores/panel-store';
import { NO_FILTERS, mergeRow, toAuditFilters } from './activity-filters';
import type { ActivityFilters } from './activity-filters';

const PAGE_SIZE = 200;
/** Rows kept in memory; older pages are dropped past this (the log itself keeps everything). */
const MAX_ROWS = 20_000;

export interface ActivityState {
  status: 'idle' | 'loading' | 'ready' | 'error' | 'unavailable';
  problem?: string;
  filters: ActivityFilters;
  /** The filters the rows were loaded with. */
  applied: AuditFilters;
  rows: AuditSummary[];
  nextCursor?: string;
  loadingMore: boolean;
  verify?: AuditVerifyResult | { error: string };
  verifying: boolean;
  setFilters: (change: Partial<ActivityFilters>) => void;
  load: () => Promise<void>;
  loadMore: () => Promise<void>;
  check: () => Promise<void>;
  exportLog: (
    format: AuditExportFormat,
  ) => Promise<{ content: string; rows: number; truncated: boolean } | { error: string }>;
  applyEvent: (event: SandpitEvent) => void;
}

export type ActivityStore = StoreApi<ActivityState>;

export function createActivityStore(client: SandpitClient): ActivityStore {
  let generation = 0;
  return createStore<ActivityState>()((set, get) => ({
    status: 'idle',
    filters: NO_FILTERS,
    applied: {},
    rows: [],
    loadingMore: false,
    verifying: false,

    setFilters: (change) => set({ filters: { ...get().filters, ...change } }),

    load: async () => {
      const mine = ++generation;
      const applied = toAuditFilters(get().filters);
      if (get().status !== 'ready') set({ status: 'loading' });
      try {
        const page = await client.call('audit.list', { filters: applied, limit: PAGE_SIZE });
        if (mine !== generation) return;
        set({ status: 'ready', problem: undefined, applied, rows: page.rows, nextCursor: page.nextCursor });
      } catch (error) {
        if (mine !== generation) return;
        set(isUnavailable(error) ? { status: 'unavailable' } : { status: 'error', problem: plainError(error) });
      }
    },

    loadMore: async () => {
      const { nextCursor, loadingMore, applied } = get();
      if (!nextCursor || loadingMore) return;
      const mine = generation;
      set({ loadingMore: true });
      try {
        const page = await client.call('audit.list', { filters: applied, limit: PAGE_SIZE, cursor: nextCursor });
        if (mine !== generation) return;
        const seen = new Set(get().rows.map((r) => r.id));
        const rows = [...get().rows, ...page.rows.filter((r) => !seen.has(r.id))].slice(0, MAX_ROWS);
        set({ rows, nextCursor: rows.length >= MAX_ROWS ? undefined : page.nextCursor });
      } catch (error) {
        set({ problem: plainError(error) });
      } finally {
        set({ loadingMore: false });
      }
    },

    check: async () => {
      set({ verifying: true });
      try {
        set({ verify: await client.call('audit.verify') });
      } catch (error) {
        set({ verify: { error: plainError(error) } });
      } finally {
        set({ verifying: false });
      }
    },

    exportLog: async (format) => {
      try {
        return await client.call('audit.export', { format, filters: get().applied });
      } catch (error) {
        return { error: plainError(error) };
      }
    },

    applyEvent: (event) => {
      if (event.name !== 'audit.appended' || get().status !== 'ready') return;
      set({ rows: mergeRow(get().rows, event.payload, get().applied).slice(0, MAX_ROWS) });
    },
  }));
}
