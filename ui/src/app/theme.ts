/**
 * Light, dark, or whatever the system prefers. The stylesheet does the work (`color-scheme`
 * and `light-dark()` colours); this only records an explicit choice on <html> and in
 * localStorage, so it holds across tabs and visits.
 */
import { useCallback, useEffect, useState } from 'react';

export type ThemeChoice = 'system' | 'light' | 'dark';

const KEY = 'kubedag.theme';
const ORDER: readonly ThemeChoice[] = ['system', 'light', 'dark'];

export function storedTheme(storage: Pick<Storage, 'getItem'>): ThemeChoice {
  const value = storage.getItem(KEY);
  return value === 'light' || value === 'dark' ? value : 'system';
}

export function applyTheme(choice: ThemeChoice, root: HTMLElement): void {
  if (choice === 'system') delete root.dataset.theme;
  else root.dataset.theme = choice;
}

export const nextTheme = (choice: ThemeChoice): ThemeChoice =>
  ORDER[(ORDER.indexOf(choice) + 1) % ORDER.length] ?? 'system';

export function useTheme(): { readonly theme: ThemeChoice; readonly cycle: () => void } {
  const [theme, setTheme] = useState<ThemeChoice>(() => storedTheme(localStorage));
  useEffect(() => {
    applyTheme(theme, document.documentElement);
    if (theme === 'system') localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, theme);
  }, [theme]);
  const cycle = useCallback(() => {
    setTheme(nextTheme);
  }, []);
  return { theme, cycle };
}
