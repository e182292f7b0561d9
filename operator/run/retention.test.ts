import { describe, expect, it } from 'vitest';
import { retentionExpired } from './retention.ts';

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
