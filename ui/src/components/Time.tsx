/**
 * Relative times ("3 minutes ago") that stay true while the page is open, with the exact local
 * time as a tooltip and in the `<time>` element for assistive technology.
 */
import { createContext, useContext, useSyncExternalStore, type ReactNode } from 'react';
import { tickingClock, type Clock } from '../lib/clock.ts';
import { absolute, relative } from '../lib/time.ts';

export const ClockContext = createContext<Clock>(tickingClock(15_000));

/** The current time, refreshed every few seconds; for components that show times relative to now. */
export function useNow(): number {
  const clock = useContext(ClockContext);
  return useSyncExternalStore(clock.subscribe, clock.now);
}

export function RelativeTime({ at }: { readonly at: number }): ReactNode {
  const now = useNow();
  return (
    <time dateTime={new Date(at).toISOString()} title={absolute(at)}>
      {relative(at, now)}
    </time>
  );
}
