import { describe, expect, it } from 'vitest';
import type { OverlapPolicy, Schedule } from '../../core/dag/index.ts';
import { catchupAction, missedMinutes, MAX_MISSED, type CatchupAction } from './catchup.ts';

const hourly: Schedule = { expression: '0 * * * *', cron: '0 * * * *' };
const at = (text: string): Date => new Date(`2026-11-29T${text}:00Z`);
const HOUR = 3_600_000;

function decide(options: {
  overlap?: OverlapPolicy;
  windowHours?: number;
  watermark?: string;
  busy?: boolean;
  minute?: string;
}): CatchupAction {
  return catchupAction({
    catchup: { windowMs: (options.windowHours ?? 6) * HOUR, overlap: options.overlap ?? 'skip' },
    schedules: [hourly],
    zone: 'UTC',
    minute: at(options.minute ?? '10:00'),
    watermark: options.watermark === undefined ? undefined : at(options.watermark),
    busy: options.busy ?? false,
  });
}

describe('catch-up of missed scheduled runs', () => {
  it.each([
    {
      name: 'starts the watermark at the minute the DAG is first seen, catching nothing up',
      input: {},
      want: { kind: 'init', watermark: at('10:00') },
    },
    {
      name: 'has nothing to do when the last minute dealt with is the one before',
      input: { watermark: '09:00' },
      want: { kind: 'none' },
    },
    {
      name: 'starts the oldest missed minute first with all',
      input: { watermark: '06:00', overlap: 'all' as const },
      want: { kind: 'start', at: at('07:00'), watermark: at('07:00') },
    },
    {
      name: 'starts only the newest missed minute with latest',
      input: { watermark: '06:00', overlap: 'latest' as const },
      want: { kind: 'start', at: at('09:00'), watermark: at('09:00') },
    },
    {
      name: 'starts the oldest with skip while nothing runs',
      input: { watermark: '06:00' },
      want: { kind: 'start', at: at('07:00'), watermark: at('07:00') },
    },
    {
      name: 'drops every missed minute with skip while a run is active',
      input: { watermark: '06:00', busy: true },
      want: { kind: 'drop', dropped: 3, watermark: at('09:00') },
    },
    {
      name: 'waits with all while a run is active',
      input: { watermark: '06:00', busy: true, overlap: 'all' as const },
      want: { kind: 'wait', missed: 3 },
    },
    {
      name: 'waits with latest while a run is active',
      input: { watermark: '06:00', busy: true, overlap: 'latest' as const },
      want: { kind: 'wait', missed: 3 },
    },
    {
      name: 'looks no further back than the window, its start excluded as in Dagu',
      input: { watermark: '01:00', windowHours: 2, overlap: 'all' as const },
      want: { kind: 'start', at: at('09:00'), watermark: at('09:00') },
    },
    {
      name: "never counts the minute being evaluated, which is the live tick's",
      input: { watermark: '09:00', minute: '10:00', overlap: 'all' as const },
      want: { kind: 'none' },
    },
  ])('$name', ({ input, want }) => {
    expect(decide(input)).toEqual(want);
  });

  it('keeps the newest missed minutes when an outage missed more than it looks at', () => {
    const everyMinute: Schedule = { expression: '* * * * *', cron: '* * * * *' };
    const missed = missedMinutes([everyMinute], at('00:00'), at('23:00'), 'UTC');
    expect([missed.length, missed.at(-1)]).toEqual([MAX_MISSED, at('22:59')]);
  });

  it('counts a minute two schedules share once', () => {
    const half: Schedule = { expression: '0,30 * * * *', cron: '0,30 * * * *' };
    expect(missedMinutes([hourly, half], at('08:00'), at('09:31'), 'UTC')).toEqual([
      at('08:30'),
      at('09:00'),
      at('09:30'),
    ]);
  });
});
