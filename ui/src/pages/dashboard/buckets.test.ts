import { describe, expect, it } from 'vitest';
import { bucketRuns, bucketStarts, countByStatus, gridStep, type PlacedRun } from './buckets.ts';

const at = (day: number, hour = 0, minute = 0): number => new Date(2026, 10, day, hour, minute).getTime();
const iso = (ms: number): string => new Date(ms).toISOString();
const started = (status: number, ms: number): PlacedRun => ({ status, startedAt: iso(ms), queuedAt: '' });
const queued = (ms: number): PlacedRun => ({ status: 5, startedAt: '', queuedAt: iso(ms) });

/** Each bucket as [its local day or hour, {status: count}], empty buckets as {}. */
function table(
  runs: readonly PlacedRun[],
  range: Parameters<typeof bucketRuns>[1],
): [number, Record<number, number>][] {
  return bucketRuns(runs, range).map((b) => [
    range.unit === 'day' ? new Date(b.start).getDate() : new Date(b.start).getHours(),
    Object.fromEntries(b.counts),
  ]);
}

describe('runs bucketed by day and status', () => {
  const week = { from: at(18), to: at(24, 15), unit: 'day' as const };

  it.each<[string, PlacedRun[], [number, Record<number, number>][]]>([
    [
      'no runs is seven empty days',
      [],
      [
        [18, {}],
        [19, {}],
        [20, {}],
        [21, {}],
        [22, {}],
        [23, {}],
        [24, {}],
      ],
    ],
    [
      'runs count on the day they started, by status',
      [started(4, at(18, 1)), started(4, at(18, 23, 59)), started(2, at(18, 12)), started(4, at(24, 0))],
      [
        [18, { 4: 2, 2: 1 }],
        [19, {}],
        [20, {}],
        [21, {}],
        [22, {}],
        [23, {}],
        [24, { 4: 1 }],
      ],
    ],
    [
      'a queued run counts on the day it was queued',
      [queued(at(20, 9))],
      [
        [18, {}],
        [19, {}],
        [20, { 5: 1 }],
        [21, {}],
        [22, {}],
        [23, {}],
        [24, {}],
      ],
    ],
    [
      'a run with no time, or outside the period, is left out',
      [{ status: 0, startedAt: '', queuedAt: '' }, started(4, at(17, 23, 59)), started(4, at(25, 0))],
      [
        [18, {}],
        [19, {}],
        [20, {}],
        [21, {}],
        [22, {}],
        [23, {}],
        [24, {}],
      ],
    ],
  ])('%s', (_, runs, want) => {
    expect(table(runs, week)).toEqual(want);
  });

  it('buckets today by hour, 24 of them whatever the time now', () => {
    const today = bucketRuns([started(1, at(24, 14, 5)), started(4, at(24, 14, 55))], {
      from: at(24),
      to: at(25) - 1,
      unit: 'hour',
    });
    expect([today.length, today[14]?.total, today[14]?.start, today[14]?.end]).toEqual([24, 2, at(24, 14), at(24, 15)]);
  });

  it('steps by the calendar: each bucket ends where the next starts, the last a day after its start', () => {
    const buckets = bucketRuns([], week);
    expect([
      buckets.every((b, i) => b.end === (buckets[i + 1]?.start ?? at(25))),
      bucketStarts(at(18), at(18), 'day'),
    ]).toEqual([true, [at(18)]]);
  });

  it('totals the runs of the period by status', () => {
    expect(Object.fromEntries(countByStatus([{ status: 4 }, { status: 2 }, { status: 4 }]))).toEqual({ 4: 2, 2: 1 });
  });
});

describe('the chart’s gridlines', () => {
  it.each<[string, number, number]>([
    ['no runs still draws a scale of 0, 1, 2', 0, 1],
    ['3 runs at most draw 0, 2, 4', 3, 2],
    ['4 runs fit 0, 2, 4 exactly', 4, 2],
    ['7 runs draw 0, 5, 10', 7, 5],
    ['11 runs draw 0, 10, 20', 11, 10],
    ['950 runs draw 0, 500, 1000', 950, 500],
  ])('%s', (_, max, want) => {
    expect(gridStep(max)).toBe(want);
  });
});
