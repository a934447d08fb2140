import { createStore } from 'zustand/vanilla';
import type { StoreApi } from 'zustand/vanilla';
import type { SandpitClient, SandpitEvent } from '../../../../shared/api/client';
import type { Artifact } from '../../../../shared/domain/artifact';
import { plainError } from '../../stores/panel-store';

/** An artifact's content once read: base64, or why it could not be read. */
export type ArtifactContent =
  { state: 'loading' } | { state: 'ready'; base64: string } | { state: 'error'; message: string };

export interface ArtifactsState {
  status: 'idle' | 'loading' | 'ready' | 'error';
  problem?: string;
  artifacts: Artifact[];
  /** Contents read so far, by sha256 (bounded: the oldest are forgotten). */
  contents: Record<string, ArtifactContent>;
  load: () => Promise<void>;
  /** Reads an artifact's content once; later calls reuse it. */
  read: (sha256: string) => Promise<ArtifactContent>;
  applyEvent: (event: SandpitEvent) => void;
}

export type ArtifactsStore = StoreApi<ArtifactsState>;

const MAX_CONTENTS = 60;
const LIST_LIMIT = 500;

export function createArtifactsStore(client: SandpitClient): ArtifactsStore {
  let reloadTimer: ReturnType<typeof setTimeout> | undefined;
  return createStore<ArtifactsState>()((set, get) => ({
    status: 'idle',
    artifacts: [],
    contents: {},

    load: async () => {
      if (get().status === 'idle') set({ status: 'loading' });
      try {
        const { artifacts } = await client.call('artifacts.list', { limit: LIST_LIMIT });
        const newestFirst = [...artifacts].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
        set({ status: 'ready', problem: undefined, artifacts: newestFirst });
      } catch (error) {
        set({ status: 'error', problem: plainError(error) });
      }
    },

    read: async (sha256) => {
      const known = get().contents[sha256];
      if (known && known.state !== 'error') return known;
      const remember = (content: ArtifactContent): void => {
        const entries = Object.entries({ ...get().contents, [sha256]: content });
        set({ contents: Object.fromEntries(entries.slice(Math.max(0, entries.length - MAX_CONTENTS))) });
      };
      remember({ state: 'loading' });
      try {
        const { contentBase64 } = await client.call('artifacts.read', { sha256 });
        const content: ArtifactContent = { state: 'ready', base64: contentBase64 };
        remember(content);
        return content;
      } catch (error) {
        const content: ArtifactContent = { state: 'error', message: plainError(error) };
        remember(content);
        return content;
      }
    },

    applyEvent: (event) => {
      // A finished run may have made files: refresh the gallery (once the screen has loaded it), at most once a second.
      if (event.name !== 'execution.done' || get().status === 'idle' || reloadTimer) return;
      reloadTimer = setTimeout(() => {
        reloadTimer = undefined;
        void get().load();
      }, 1_000);
    },
  }));
}
