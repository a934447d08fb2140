import { useEffect } from 'react';
import { useAppStore } from '../../stores/panel-context';

/** Puts the chosen theme on the page (`data-theme` on <html>; "system" follows the computer's light or dark mode). */
export function useThemeEffect(): void {
  const theme = useAppStore('settings', (s) => s.draft?.theme ?? s.theme);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
}
