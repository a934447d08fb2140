import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { StoreApi } from 'zustand/vanilla';
import type { SandpitClient } from '../../../shared/api/client';
import type { AppStores } from './app-stores';
import type { PanelState } from './panel-store';

export interface AppServices {
  client: SandpitClient;
  stores: AppStores;
  /** Uses a panel token from a pasted link or a new link made here (web panel; absent over IPC). */
  adoptToken?: (token: string) => void;
}

export const PanelContext = createContext<AppServices | undefined>(undefined);

function useServices(): AppServices {
  const services = useContext(PanelContext);
  if (!services) throw new Error('the panel needs a PanelContext provider');
  return services;
}

/** The typed client, for calls a screen makes itself (forms, files). */
export function useClient(): SandpitClient {
  return useServices().client;
}

type StateOf<K extends keyof AppStores> = AppStores[K] extends StoreApi<infer S> ? S : never;

/** How this page takes a new panel token, when it can (a browser tab). */
export function useAdoptToken(): ((token: string) => void) | undefined {
  return useServices().adoptToken;
}

/** Selects from one of the panel's stores. */
export function useAppStore<K extends keyof AppStores, T>(key: K, selector: (state: StateOf<K>) => T): T {
  const store = useServices().stores[key] as unknown as StoreApi<StateOf<K>>;
  return useStore<StoreApi<StateOf<K>>, T>(store, selector);
}

/** Selects from the main panel store (connection, engine, sessions, navigation). */
export function usePanel<T>(selector: (state: PanelState) => T): T {
  return useAppStore('panel', selector);
}
