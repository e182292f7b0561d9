/**
 * Runs counted by status, and by status in each hour (today) or day (longer periods) of a
 * period: what the dashboard's numbers and chart show. Pure, over run summaries.
 *
 * A run is placed at its start, or at its queueing while it waits; a run with neither (created,
 * not yet queued or started) has no place in time and counts only in the totals.
 */
import { instant } from '../../lib/time.ts';

export type Unit = 'hour' | 'day';

/** The statuses in the order the chart stacks them (bottom first) and the legend lists them. */
export const SERIES: readonly { readonly status: number; readonly label: string }[] = [
  { status: 4, label: 'succeeded' },
  { status: 6, label: 'partially_succeeded' },
  { status: 2, label: 'failed' },
  { status: 3, label: 'canceled' },
  { status: 1, label: 'running' },
  { status: 5, label: 'queued' },
  { status: 0, label: 'not_started' },
];

export interface PlacedRun {
  readonly status: number;
  readonly startedAt: string;
  readonly queuedAt: string;
}

export interface Bucket {
  /** Local start of the hour or day, ms since the epoch; the end is the next bucket's start. */
  readonly start: number;
  readonly end: number;
  /** Runs by status integer. */
  readonly counts: ReadonlyMap<number, number>;
  readonly total: number;
}

/** Runs by status integer. */
export function countByStatus(runs: readonly { readonly status: number }[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const run of runs) counts.set(run.status, (counts.get(run.status) ?? 0) + 1);
  return counts;
}

/** The start of the next hour or day after `start`, by the local calendar. */
function step(start: number, unit: Unit): number {
  const at = new Date(start);
  if (unit === 'hour') at.setHours(at.getHours() + 1);
  else at.setDate(at.getDate() + 1);
  return at.getTime();
}

/**
 * The bucket starts from `from` up to `to`, stepping by the calendar in local time (a day is
 * midnight to midnight, however long); the last bucket is the one `to` falls in.
 */
export function bucketStarts(from: number, to: number, unit: Unit): number[] {
  const starts: number[] = [];
  for (let at = from; at <= to; at = step(at, unit)) starts.push(at);
  return starts;
}

/** The index of the last start at or before `at`, or -1. Starts are ascending. */
function bucketOf(starts: readonly number[], at: number): number {
  let low = 0;
  let high = starts.length - 1;
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if ((starts[mid] ?? Infinity) <= at) {
      found = mid;
      low = mid + 1;
    } else high = mid - 1;
  }
  return found;
}

/** The period's buckets with the runs counted in each; runs outside the period are left out. */
export function bucketRuns(
  runs: readonly PlacedRun[],
  range: { readonly from: number; readonly to: number; readonly unit: Unit },
): Bucket[] {
  const starts = bucketStarts(range.from, range.to, range.unit);
  const counts = starts.map(() => new Map<number, number>());
  const last = starts.at(-1);
  const end = last === undefined ? range.from : step(last, range.unit);
  for (const run of runs) {
    const at = instant(run.startedAt) ?? instant(run.queuedAt);
    if (at === undefined || at >= end) continue;
    const bucket = counts[bucketOf(starts, at)];
    bucket?.set(run.status, (bucket.get(run.status) ?? 0) + 1);
  }
  return starts.map((start, index) => {
    const bucket = counts[index] ?? new Map<number, number>();
    let total = 0;
    for (const n of bucket.values()) total += n;
    return { start, end: starts[index + 1] ?? end, counts: bucket, total };
  });
}

/**
 * The chart's gridline step for a tallest bar of `max` runs: 1, 2 or 5 times a power of ten,
 * the smallest whose double reaches `max`, so the axis reads 0, step, 2 x step in whole runs.
 */
export function gridStep(max: number): number {
  for (let power = 1; ; power *= 10) {
    for (const factor of [1, 2, 5]) if (factor * power * 2 >= max) return factor * power;
  }
}
