import { describe, expect, it } from 'vitest';
import { elapsed, tickOffsets, timeline, type TimelineStep } from './geometry.ts';

const T0 = Date.parse('2026-05-01T10:00:00Z');
const at = (seconds: number): string => new Date(T0 + seconds * 1_000).toISOString();

/** A step that ran from `from` to `to` seconds after T0 (to: undefined = still running). */
function step(name: string, from?: number, to?: number, extra: Partial<TimelineStep> = {}): TimelineStep {
  const status = from === undefined ? 'not_started' : to === undefined ? 'running' : 'succeeded';
  return {
    name,
    statusLabel: status,
    startedAt: from === undefined ? '' : at(from),
    finishedAt: to === undefined ? '' : at(to),
    retryCount: 0,
    doneCount: 0,
    ...extra,
  };
}

describe('the timeline of a run', () => {
  it('spans the first start to the last end and places each step by its times', () => {
    const t = timeline([step('extract', 0, 10), step('load', 10, 40)], T0 + 60_000);
    expect([t.start, t.end]).toEqual([T0, T0 + 40_000]);
    expect(t.rows.map((r) => r.bars.map((b) => [b.left, b.width]))).toEqual([[[0, 0.25]], [[0.25, 0.75]]]);
    expect(t.rows.map((r) => r.took)).toEqual([10_000, 30_000]);
  });

  it('draws a running step up to now, and the axis with it', () => {
    const t = timeline([step('extract', 0, 10), step('load', 10)], T0 + 20_000);
    expect(t.end).toBe(T0 + 20_000);
    expect(t.rows[1]?.bars).toMatchObject([{ left: 0.5, width: 0.5, running: true, statusLabel: 'running' }]);
  });

  it('gives a step that never started a row without bars', () => {
    const t = timeline([step('extract', 0, 10), step('load')], T0 + 20_000);
    expect(t.rows.map((r) => [r.name, r.bars.length, r.took])).toEqual([
      ['extract', 1, 10_000],
      ['load', 0, undefined],
    ]);
  });

  it('draws each recorded attempt of a retried step as its own bar, with its status and exit code', () => {
    const retried = step('flaky', 0, 30, {
      statusLabel: 'succeeded',
      retryCount: 1,
      attempts: [
        { attempt: 0, startedAt: at(0), finishedAt: at(10), statusLabel: 'failed', exitCode: 3 },
        { attempt: 1, startedAt: at(20), finishedAt: at(30), statusLabel: 'succeeded', exitCode: 0 },
      ],
    });
    const t = timeline([retried], T0 + 60_000);
    expect(t.rows[0]?.bars.map((b) => [b.attempt, b.left, b.width, b.statusLabel, b.exitCode])).toEqual([
      [0, 0, 1 / 3, 'failed', 3],
      [1, 2 / 3, 1 / 3, 'succeeded', 0],
    ]);
    expect(t.rows[0]?.retries).toBe(1);
  });

  it('ends an attempt left open by a stopped step where the step ended, not at now', () => {
    const stopped = step('long', 0, 5, {
      statusLabel: 'canceled',
      attempts: [{ attempt: 0, startedAt: at(0), finishedAt: '', statusLabel: 'running' }],
    });
    expect(timeline([stopped], T0 + 60_000).rows[0]?.bars).toMatchObject([{ end: T0 + 5_000, running: false }]);
  });

  it('marks repeats and attempts that are no longer recorded', () => {
    const repeating = step('poll', 0, 9, { doneCount: 25, attemptsDropped: 5 });
    expect(timeline([repeating], T0).rows[0]).toMatchObject({ runs: 25, hiddenAttempts: 5 });
  });

  it('keeps handlers apart from steps', () => {
    const t = timeline([step('extract', 0, 1), step('onFailure', 1, 2, { handler: true })], T0);
    expect(t.rows.map((r) => r.handler)).toEqual([false, true]);
  });

  it('gives a run of instantaneous steps an axis of a second, so that its bars can be seen', () => {
    const t = timeline([step('a', 0, 0), step('b', 0, 0)], T0);
    expect([t.end - t.start, t.rows[0]?.bars[0]?.width]).toEqual([1_000, 0]);
  });

  it('has an axis at now and no bars when nothing started', () => {
    const t = timeline([step('a'), step('b')], T0);
    expect([t.start, t.rows.every((r) => r.bars.length === 0)]).toEqual([T0, true]);
  });
});

describe('the ticks of the time axis', () => {
  it.each<[string, number, number, number[]]>([
    ['a minute in 6 ticks is every 10 s', 60_000, 6, [0, 10_000, 20_000, 30_000, 40_000, 50_000, 60_000]],
    ['40 s in 6 ticks is every 10 s', 40_000, 6, [0, 10_000, 20_000, 30_000, 40_000]],
    ['2 minutes in 4 ticks is every 30 s', 120_000, 4, [0, 30_000, 60_000, 90_000, 120_000]],
    [
      'an hour in 6 ticks is every 10 min',
      3_600_000,
      6,
      [0, 600_000, 1_200_000, 1_800_000, 2_400_000, 3_000_000, 3_600_000],
    ],
    ['a second in 6 ticks is every second', 1_000, 6, [0, 1_000]],
  ])('%s', (_, span, most, want) => {
    expect(tickOffsets(span, most)).toEqual(want);
  });

  it('never draws more ticks than asked for, even for a span of months', () => {
    expect(tickOffsets(200 * 86_400_000, 6).length).toBeLessThanOrEqual(7);
  });
});

describe('how long a step took', () => {
  it.each<[number, string]>([
    [0, '< 1 s'],
    [999, '< 1 s'],
    [1_000, '1.0 s'],
    [65_000, '1 min 5 s'],
  ])('%i ms reads "%s" (the API counts whole seconds)', (ms, want) => {
    expect(elapsed(ms)).toBe(want);
  });
});
