import { describe, expect, it } from 'vitest';
import { duration, instant, relative } from './time.ts';

describe('times as people read them', () => {
  it.each<[number, string]>([
    [420, '420 ms'],
    [4_240, '4.2 s'],
    [42_000, '42 s'],
    [185_000, '3 min 5 s'],
    [7_800_000, '2 h 10 min'],
    [3_600_000, '1 h'],
    [277_200_000, '3 d 5 h'],
  ])('a duration of %i ms reads "%s"', (ms, want) => {
    expect(duration(ms)).toBe(want);
  });

  it.each<[number, string]>([
    [-5_000, 'just now'],
    [-180_000, '3 minutes ago'],
    [7_200_000, 'in 2 hours'],
    [-86_400_000, 'yesterday'],
  ])('a time %i ms from now reads "%s"', (delta, want) => {
    expect(relative(1_000_000_000_000 + delta, 1_000_000_000_000)).toBe(want);
  });

  it('reads the contract empty timestamp as no time', () => {
    expect([instant(''), instant('2026-05-01T10:00:00Z')]).toEqual([undefined, Date.parse('2026-05-01T10:00:00Z')]);
  });
});
