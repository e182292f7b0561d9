import { describe, expect, it } from 'vitest';
import { retentionDue, retentionExpired } from './retention-due.ts';

describe('retentionExpired', () => {
  const now = new Date('2026-03-31T12:00:00Z');
  const cases = [
    { name: 'keeps a run younger than its retention', finishedAt: '2026-03-02T12:00:01Z', days: 30, want: false },
    { name: 'drops a run exactly at its retention', finishedAt: '2026-03-01T12:00:00Z', days: 30, want: true },
    { name: 'keeps a run that has not finished', finishedAt: undefined, days: 1, want: false },
    { name: 'keeps everything with no retention set', finishedAt: '2020-01-01T00:00:00Z', days: 0, want: false },
  ];
  it.each(cases)('$name', ({ finishedAt, days, want }) => {
    expect(retentionExpired(finishedAt, days, now)).toBe(want);
  });
});

describe('retentionDue', () => {
  const cases = [
    {
      name: 'a run is due its retention days after it finished',
      finishedAt: '2026-03-01T12:00:00Z',
      days: 30,
      want: Date.parse('2026-03-31T12:00:00Z'),
    },
    { name: 'a run that has not finished is never due', finishedAt: undefined, days: 1, want: undefined },
    { name: 'no retention set means never due', finishedAt: '2020-01-01T00:00:00Z', days: 0, want: undefined },
  ];
  it.each(cases)('$name', ({ finishedAt, days, want }) => {
    expect(retentionDue(finishedAt, days)).toBe(want);
  });
});
