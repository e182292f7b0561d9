import { describe, expect, it } from 'vitest';
import { periodQuery, periodStart, startOfDay } from './period.ts';

// Local times, so the cases hold in any time zone the tests run in.
const at = (day: number, hour = 0, minute = 0): number => new Date(2026, 10, day, hour, minute).getTime();
const seconds = (ms: number): number => Math.floor(ms / 1000);

describe('a period as GET /dag-runs filters', () => {
  it.each<[string, Parameters<typeof periodQuery>[0], number, ReturnType<typeof periodQuery>]>([
    ['today starts at local midnight', 'today', at(24, 15, 30), { fromDate: seconds(at(24)) }],
    ['7 days are today and the six days before', '7d', at(24, 15, 30), { fromDate: seconds(at(18)) }],
    [
      '30 days cross into the month before',
      '30d',
      at(24, 0, 1),
      { fromDate: seconds(new Date(2026, 9, 26).getTime()) },
    ],
    ['all time has no start', 'all', at(24), {}],
  ])('%s', (_, period, now, want) => {
    expect(periodQuery(period, now)).toEqual(want);
  });

  it('asks the same all day, so the query is cached and polled under one key', () => {
    expect(periodQuery('7d', at(24, 0, 0))).toEqual(periodQuery('7d', at(24, 23, 59)));
  });

  it('counts days by the calendar: midnight a day back is midnight, whatever the day was long', () => {
    expect([startOfDay(at(24, 12), 1), periodStart('today', at(24, 23, 59))]).toEqual([at(23), at(24)]);
  });
});
