import { createStore } from 'zustand/vanilla';
import type { StoreApi } from 'zustand/vanilla';
import type { SandpitClient, SandpitEvent } from '../../../../shared/api/client';
import type { SettingsPatch, SettingsView } from '../../../../shared/domain/settings';
import { isUnavailable } from '../../lib/unavailable';
import { plainError } from '../../stores/panel-store';
import { THEMES, buildPatch, changedFields, draftFromView, rebase, serverErrors } from './settings-draft';
import type { FieldErrors, SettingsDraft, Theme } from './settings-draft';

export interface SettingsState {
  status: 'idle' | 'loading' | 'ready' | 'error' | 'unavailable';
  problem?: string;
  view?: SettingsView;
  /** What is saved, as the form shows it. */
  base?: SettingsDraft;
  /** What the form shows now; differs from `base` until saved or discarded. */
  draft?: SettingsDraft;
  /** Whether the draft holds changes that are not saved. */
  dirty: boolean;
  /** The fields changed and not saved yet (for the bar's count). */
  changed: number;
  saving: boolean;
  /** The server's (or the form's) words, next to the field they are about. */
  errors: FieldErrors;
  /** A refusal that names no field. */
  saveProblem?: string;
  /** When the last save went through (the bar says "Saved" for a moment). */
  savedAt?: number;
  /** The theme kept in this browser (the draft's may differ while not saved: it shows as a preview). */
  theme: Theme;
  load: () => Promise<void>;
  edit: (change: Partial<SettingsDraft>) => void;
  discard: () => void;
  /** Saves every change at once; resolves with whether it went through. */
  save: () => Promise<boolean>;
  /** Saves one change right away (e.g. "use this Docker address" from the engine card); resolves with the refusal. */
  update: (patch: SettingsPatch) => Promise<string | undefined>;
  applyEvent: (event: SandpitEvent) => void;
}

export type SettingsStore = StoreApi<SettingsState>;

export const THEME_KEY = 'sandpit.theme';

type Storage = Pick<globalThis.Storage, 'getItem' | 'setItem' | 'removeItem'>;

function storedTheme(storage: Storage | undefined): Theme {
  try {
    const value = storage?.getItem(THEME_KEY);
    return (THEMES as readonly string[]).includes(value ?? '') ? (value as Theme) : 'system';
  } catch {
    return 'system';
  }
}

function counted(draft: SettingsDraft | undefined, base: SettingsDraft | undefined): { dirty: boolean; changed: number } {
  const changed = draft && base ? changedFields(draft, base).length : 0;
  return { dirty: changed > 0, changed };
}

export function createSettingsStore(client: SandpitClient, storage?: Storage): SettingsStore {
  return createStore<SettingsState>()((set, get) => {
    /** A new saved view: untouched fields follow it, touched ones keep what was typed. */
    const receive = (view: SettingsView, theme: Theme = get().theme): void => {
      const base = draftFromView(view, theme);
      const { draft: oldDraft, base: oldBase } = get();
      const draft = oldDraft && oldBase ? rebase(oldDraft, oldBase, base) : base;
      set({ view, base, draft, ...counted(draft, base) });
    };

    return {
      status: 'idle',
      dirty: false,
      changed: 0,
      saving: false,
      errors: {},
      theme: storedTheme(storage),

      load: async () => {
        if (get().status === 'idle') set({ status: 'loading' });
        try {
          const view = await client.call('settings.get');
          set({ status: 'ready', problem: undefined });
          receive(view);
        } catch (error) {
          set(isUnavailable(error) ? { status: 'unavailable' } : { status: 'error', problem: plainError(error) });
        }
      },

      edit: (change) => {
        const { draft, base, errors } = get();
        if (!draft) return;
        const next = { ...draft, ...change };
        const cleared = { ...errors };
        for (const key of Object.keys(change) as (keyof SettingsDraft)[]) delete cleared[key];
        set({ draft: next, errors: cleared, saveProblem: undefined, savedAt: undefined, ...counted(next, base) });
      },

      discard: () => {
        const base = get().base;
        set({ draft: base, errors: {}, saveProblem: undefined, ...counted(base, base) });
      },

      save: async () => {
        const { draft, base } = get();
        if (!draft || !base) return false;
        const { patch, errors } = buildPatch(draft, base);
        if (Object.keys(errors).length > 0) {
          set({ errors, saveProblem: undefined });
          return false;
        }
        set({ saving: true, errors: {}, saveProblem: undefined });
        try {
          const view = Object.keys(patch).length > 0 ? await client.call('settings.update', { patch }) : get().view;
          if (draft.theme !== base.theme) {
            try {
              if (draft.theme === 'system') storage?.removeItem(THEME_KEY);
              else storage?.setItem(THEME_KEY, draft.theme);
            } catch {
              // Storage may be disabled: the theme then lasts until the page is closed.
            }
          }
          set({ theme: draft.theme, draft: undefined, base: undefined });
          if (view) receive(view, draft.theme);
          set({ savedAt: Date.now() });
          return true;
        } catch (error) {
          const refused = serverErrors(plainError(error), patch);
          set({ errors: refused.errors, saveProblem: refused.general });
          return false;
        } finally {
          set({ saving: false });
        }
      },

      update: async (patch) => {
        try {
          receive(await client.call('settings.update', { patch }));
          return undefined;
        } catch (error) {
          return plainError(error);
        }
      },

      applyEvent: (event) => {
        if (event.name === 'settings.updated') {
          set({ status: 'ready' });
          receive(event.payload);
        }
      },
    };
  });
}
