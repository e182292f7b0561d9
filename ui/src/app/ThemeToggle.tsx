/**
 * One button that steps through system (Auto), light and dark; its label says what a press
 * does, and starts with the word it shows, so speech input can name it by what it reads.
 */
import type { ReactNode } from 'react';
import { Icon } from '../components/Icon.tsx';
import { nextTheme, useTheme, type ThemeChoice } from './theme.ts';

const NAMES: Readonly<Record<ThemeChoice, string>> = { system: 'Auto', light: 'Light', dark: 'Dark' };
const ICONS = { system: 'auto', light: 'sun', dark: 'moon' } as const;

export function ThemeToggle(): ReactNode {
  const { theme, cycle } = useTheme();
  const label = `${NAMES[theme]} theme. Switch to ${NAMES[nextTheme(theme)]}`;
  return (
    <button type="button" className="button button-quiet theme-toggle" onClick={cycle} title={label} aria-label={label}>
      <Icon name={ICONS[theme]} />
      <span className="theme-toggle-text">{NAMES[theme]}</span>
    </button>
  );
}
