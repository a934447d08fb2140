import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { PanelState, PanelStore } from './panel-store';

export const PanelContext = createContext<PanelStore | undefined>(undefined);

/** Selects from the panel store given by the nearest PanelContext provider. */
export function usePanel<T>(selector: (state: PanelState) => T): T {
  const store = useContext(PanelContext);
  if (!store) throw new Error('usePanel needs a PanelContext provider');
  return useStore(store, selector);
}
