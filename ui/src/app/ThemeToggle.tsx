/** One button that steps through system, light and dark; its label says what a press does. */
import type { ReactNode } from 'react';
import { Icon } from '../components/Icon.tsx';
import { nextTheme, useTheme, type ThemeChoice } from './theme.ts';

const NAMES: Readonly<Record<ThemeChoice, string>> = { system: 'system', light: 'light', dark: 'dark' };
const ICONS = { system: 'auto', light: 'sun', dark: 'moon' } as const;

export function ThemeToggle(): ReactNode {
  const { theme, cycle } = useTheme();
  const label = `Theme: ${NAMES[theme]}. Switch to ${NAMES[nextTheme(theme)]}`;
  return (
    <button type="button" className="button button-quiet theme-toggle" onClick={cycle} title={label} aria-label={label}>
      <Icon name={ICONS[theme]} />
      <span className="theme-toggle-text">{theme === 'system' ? 'Auto' : theme === 'light' ? 'Light' : 'Dark'}</span>
    </button>
  );
}
