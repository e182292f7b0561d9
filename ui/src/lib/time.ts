/**
 * Times as people read them: "3 minutes ago", "in 2 hours", durations such as "1 min 5 s". The API
 * gives ISO 8601 timestamps, and the empty string for a time that has not come yet.
 */

/** Milliseconds since the epoch, or undefined for the contract's "not yet" (''). */
export function instant(timestamp: string): number | undefined {
  if (timestamp === '') return undefined;
  const ms = Date.parse(timestamp);
  return Number.isNaN(ms) ? undefined : ms;
}

const UNITS: readonly (readonly [Intl.RelativeTimeFormatUnit, number])[] = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1_000],
];

const relativeFormat = new Intl.RelativeTimeFormat('en', { numeric: 'auto', style: 'long' });

/** "5 minutes ago", "in 2 hours", "just now": `at` relative to `now`, in its largest whole unit. */
export function relative(at: number, now: number): string {
  const delta = at - now;
  const unit = Math.abs(delta) < 10_000 ? undefined : UNITS.find(([, size]) => Math.abs(delta) >= size);
  return unit === undefined ? 'just now' : relativeFormat.format(Math.trunc(delta / unit[1]), unit[0]);
}

/** "850 ms", "4.2 s", "3 min 5 s", "2 h 10 min", "3 d 4 h": two units at most. */
export function duration(ms: number): string {
  if (ms < 1_000) return `${String(Math.max(0, Math.round(ms)))} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const parts: [number, string][] = [
    [Math.floor(ms / 86_400_000), 'd'],
    [Math.floor(ms / 3_600_000) % 24, 'h'],
    [Math.floor(ms / 60_000) % 60, 'min'],
    [Math.floor(ms / 1_000) % 60, 's'],
  ];
  const first = parts.findIndex(([value]) => value > 0);
  return parts
    .slice(first, first + 2)
    .filter(([value]) => value > 0)
    .map(([value, unit]) => `${String(value)} ${unit}`)
    .join(' ');
}

const absoluteFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const shortFormat = new Intl.DateTimeFormat(undefined, {
  weekday: 'short',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});

/** The full local date and time, for tooltips beside a relative time. */
export function absolute(at: number): string {
  return absoluteFormat.format(at);
}

/** "Tue, Nov 25, 02:00": a time soon enough that the year goes without saying. */
export function short(at: number): string {
  return shortFormat.format(at);
}
