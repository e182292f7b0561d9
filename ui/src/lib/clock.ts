/**
 * The time the page shows relative times against: one clock for the whole page, ticking every
 * few seconds while anything watches it, so that "3 minutes ago" stays true on an open page
 * without a timer per row. Made once in main.tsx and handed down, so tests can fix it.
 */

export interface Clock {
  readonly now: () => number;
  readonly subscribe: (listener: () => void) => () => void;
}

export function tickingClock(tickMs: number, read: () => number = Date.now): Clock {
  let now = read();
  const listeners = new Set<() => void>();
  let timer: ReturnType<typeof setInterval> | undefined;
  return {
    now: () => now,
    subscribe: (listener) => {
      listeners.add(listener);
      if (timer === undefined) now = read();
      timer ??= setInterval(() => {
        now = read();
        for (const l of listeners) l();
      }, tickMs);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) {
          clearInterval(timer);
          timer = undefined;
        }
      };
    },
  };
}
