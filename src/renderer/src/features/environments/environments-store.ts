import { createStore } from 'zustand/vanilla';
import type { StoreApi } from 'zustand/vanilla';
import type { SandpitClient, SandpitEvent } from '../../../../shared/api/client';
import type { EnvironmentView as Environment } from '../../../../shared/domain/environment';
import { PRESET_IDS } from '../../../../shared/domain/languages';
import { stripAnsi } from '../../lib/format';
import { plainError } from '../../stores/panel-store';

/** The live log of an environment's latest build. */
export interface BuildLog {
  lines: string[];
  step?: number;
  steps?: number;
  /** Whether early lines were dropped to keep memory bounded. */
  trimmed: boolean;
}

export interface EnvironmentsState {
  status: 'idle' | 'loading' | 'ready' | 'error';
  problem?: string;
  environments: Environment[];
  logs: Record<string, BuildLog>;
  /** Ids with a build call in flight from this panel. */
  building: string[];
  load: () => Promise<void>;
  /** Builds an environment; resolves with the error message when it failed. */
  build: (environmentId: string, force?: boolean) => Promise<string | undefined>;
  applyEvent: (event: SandpitEvent) => void;
}

export type EnvironmentsStore = StoreApi<EnvironmentsState>;

export const MAX_LOG_LINES = 2_000;

/** The built-in ones in the order a person meets them (the registry's: plain Python first), then the person's own by name. */
function presetRank(env: Environment): number {
  const i = PRESET_IDS.indexOf(env.id);
  return i === -1 ? PRESET_IDS.length : i;
}
function sorted(list: Environment[]): Environment[] {
  return [...list].sort((a, b) => Number(b.preset) - Number(a.preset) || (a.preset ? presetRank(a) - presetRank(b) : 0) || a.name.localeCompare(b.name));
}

export function appendLogLine(log: BuildLog | undefined, line: string, step?: number, steps?: number): BuildLog {
  const lines = [...(log?.lines ?? []), stripAnsi(line)];
  const over = lines.length - MAX_LOG_LINES;
  return {
    lines: over > 0 ? lines.slice(over) : lines,
    step: step ?? log?.step,
    steps: steps ?? log?.steps,
    trimmed: (log?.trimmed ?? false) || over > 0,
  };
}

export function createEnvironmentsStore(client: SandpitClient): EnvironmentsStore {
  return createStore<EnvironmentsState>()((set, get) => ({
    status: 'idle',
    environments: [],
    logs: {},
    building: [],

    load: async () => {
      if (get().status === 'idle') set({ status: 'loading' });
      try {
        const { environments } = await client.call('environments.list');
        set({ status: 'ready', problem: undefined, environments: sorted(environments) });
      } catch (error) {
        set({ status: 'error', problem: plainError(error) });
      }
    },

    build: async (environmentId, force = false) => {
      set({
        building: [...get().building, environmentId],
        logs: { ...get().logs, [environmentId]: { lines: [], trimmed: false } },
      });
      try {
        const env = await client.call('environments.build', { environmentId, force });
        set({ environments: sorted([...get().environments.filter((e) => e.id !== env.id), env]) });
        return env.build?.state === 'failed' ? (env.build.error ?? 'The build failed.') : undefined;
      } catch (error) {
        return plainError(error);
      } finally {
        set({ building: get().building.filter((id) => id !== environmentId) });
      }
    },

    applyEvent: (event) => {
      switch (event.name) {
        case 'environment.updated': {
          // The event never carries the secrets its sessions may use (secrets.changed says when they change).
          const known = get().environments.find((e) => e.id === event.payload.id);
          const view = event.payload.secrets === undefined && known?.secrets ? { ...event.payload, secrets: known.secrets } : event.payload;
          set({ environments: sorted([...get().environments.filter((e) => e.id !== event.payload.id), view]) });
          break;
        }
        case 'secrets.changed':
          void get().load();
          break;
        case 'environment.removed':
          set({ environments: get().environments.filter((e) => e.id !== event.payload.environmentId) });
          break;
        case 'environment.buildLog': {
          const { environmentId, line, step, steps } = event.payload;
          set({
            logs: { ...get().logs, [environmentId]: appendLogLine(get().logs[environmentId], line, step, steps) },
          });
          break;
        }
        default:
          break;
      }
    },
  }));
}
