/**
 * The periods runs are looked at over, as the user's own days: "today" starts at local
 * midnight, "7 days" at the midnight six days before it (so today and the six days before).
 * Days are counted with the calendar (setDate), not in 24-hour steps, so a day that is 23 or
 * 25 hours long (a daylight-saving change) still starts at midnight.
 */
export type Period = 'today' | '7d' | '30d' | 'all';

export const PERIODS: readonly { readonly value: Period; readonly label: string }[] = [
  { value: 'today', label: 'Today' },
  { value: '7d', label: '7 days' },
  { value: '30d', label: '30 days' },
  { value: 'all', label: 'All time' },
];

const DAYS: Readonly<Record<Exclude<Period, 'all'>, number>> = { today: 1, '7d': 7, '30d': 30 };

export function isPeriod(text: string | null): text is Period {
  return PERIODS.some((p) => p.value === text);
}

/** Local midnight of the day `at` falls in, `back` days before it. */
export function startOfDay(at: number, back = 0): number {
  const day = new Date(at);
  day.setHours(0, 0, 0, 0);
  day.setDate(day.getDate() - back);
  return day.getTime();
}

/** When the period starts (ms since the epoch); undefined for all time. */
export function periodStart(period: Period, now: number): number | undefined {
  return period === 'all' ? undefined : startOfDay(now, DAYS[period] - 1);
}

/**
 * GET /dag-runs's filter for the period: fromDate in whole Unix seconds, and no toDate (up to
 * now), so the query stays the same all day and its cache key with it.
 */
export function periodQuery(period: Period, now: number): { fromDate?: number } {
  const start = periodStart(period, now);
  return start === undefined ? {} : { fromDate: Math.floor(start / 1000) };
}
