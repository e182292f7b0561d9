import { describe, expect, it } from 'vitest';
import { loadDag } from './load.ts';
import { nextFireTimes, nextStart, parseSchedule } from './schedule.ts';

describe('parseSchedule', () => {
  const cases: { name: string; expression: string; want: object }[] = [
    {
      name: 'reads five cron fields',
      expression: '0 9 * * MON-FRI',
      want: { schedule: { expression: '0 9 * * MON-FRI', cron: '0 9 * * MON-FRI' } },
    },
    {
      name: 'reads a CRON_TZ prefix as the zone',
      expression: 'CRON_TZ=Asia/Tokyo 30 6 * * *',
      want: { schedule: { expression: 'CRON_TZ=Asia/Tokyo 30 6 * * *', cron: '30 6 * * *', timezone: 'Asia/Tokyo' } },
    },
    {
      name: 'reads a TZ prefix as the zone',
      expression: 'TZ=Europe/Paris 0 0 1 * *',
      want: { schedule: { expression: 'TZ=Europe/Paris 0 0 1 * *', cron: '0 0 1 * *', timezone: 'Europe/Paris' } },
    },
    {
      name: 'collapses repeated spaces',
      expression: ' 0  9 * *   * ',
      want: { schedule: { expression: '0  9 * *   *', cron: '0 9 * * *' } },
    },
    {
      name: 'refuses six fields',
      expression: '0 0 9 * * *',
      want: {
        error:
          '"0 0 9 * * *": a cron expression has exactly 5 fields (minute hour day-of-month month day-of-week), found 6',
      },
    },
    {
      name: 'refuses descriptors',
      expression: '@hourly',
      want: { error: '"@hourly": descriptors such as @daily are not supported; write the 5 cron fields' },
    },
    {
      name: 'refuses an unknown zone',
      expression: 'CRON_TZ=Nowhere/City 0 9 * * *',
      want: { error: 'unknown time zone "Nowhere/City"' },
    },
    {
      name: 'refuses an out-of-range hour',
      expression: '0 24 * * *',
      want: { error: '"0 24 * * *": Invalid value for hour: 24' },
    },
  ];
  it.each(cases)('$name', ({ expression, want }) => {
    expect(parseSchedule(expression)).toEqual(want);
  });
});

describe('schedule forms in a DAG file', () => {
  it('puts a string and a list under start', () => {
    const dag = loadDag('schedule: ["0 1 * * *", "0 13 * * *"]\nsteps: [echo]', { fileName: 's' }).dag;
    expect(dag.schedule.start.map((s) => s.cron)).toEqual(['0 1 * * *', '0 13 * * *']);
    expect(dag.schedule.stop).toEqual([]);
  });

  it('reads start, stop and restart lists', () => {
    const dag = loadDag('schedule: {start: "0 8 * * *", stop: ["0 18 * * *"], restart: "0 12 * * *"}\nsteps: [echo]', {
      fileName: 's',
    }).dag;
    expect([dag.schedule.start.length, dag.schedule.stop.length, dag.schedule.restart.length]).toEqual([1, 1, 1]);
  });
});

describe('next fire times', () => {
  const from = new Date('2026-03-07T23:30:00Z');

  it('are computed in the schedule zone', () => {
    const schedule = { expression: 'CRON_TZ=Asia/Tokyo 0 9 * * *', cron: '0 9 * * *', timezone: 'Asia/Tokyo' };
    expect(nextFireTimes(schedule, from, 2).map((d) => d.toISOString())).toEqual([
      '2026-03-08T00:00:00.000Z',
      '2026-03-09T00:00:00.000Z',
    ]);
  });

  it('use the default zone when the schedule has none', () => {
    const schedule = { expression: '0 9 * * *', cron: '0 9 * * *' };
    expect(nextFireTimes(schedule, from, 1, 'America/New_York').map((d) => d.toISOString())).toEqual([
      '2026-03-08T13:00:00.000Z',
    ]);
  });

  it('are strictly after the given time', () => {
    const schedule = { expression: '30 23 * * *', cron: '30 23 * * *' };
    expect(nextFireTimes(schedule, from, 1)[0]?.toISOString()).toBe('2026-03-08T23:30:00.000Z');
  });

  it('give the earliest start of several schedules, or nothing without one', () => {
    const dag = loadDag('schedule: ["0 12 * * *", "45 23 * * *"]\nsteps: [echo]', { fileName: 's' }).dag;
    expect(nextStart(dag.schedule, from)?.toISOString()).toBe('2026-03-07T23:45:00.000Z');
    expect(nextStart({ start: [], stop: [], restart: [] }, from)).toBeUndefined();
  });
});
