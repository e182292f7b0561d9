import { describe, expect, it } from 'vitest';
import { nextRun, splitZone } from './next-run.ts';

const FROM = new Date('2026-05-01T10:30:00Z');

describe('nextRun', () => {
  it.each<[string, string[], string | undefined]>([
    ['no schedule has no next run', [], undefined],
    ['an expression without a zone is read in UTC', ['0 12 * * *'], '2026-05-01T12:00:00.000Z'],
    ['a CRON_TZ prefix names the zone', ['CRON_TZ=Asia/Tokyo 0 12 * * *'], '2026-05-02T03:00:00.000Z'],
    ['the earliest of several expressions wins', ['0 12 * * *', '45 10 * * *'], '2026-05-01T10:45:00.000Z'],
    ['an invalid expression is skipped', ['not cron', '0 11 * * *'], '2026-05-01T11:00:00.000Z'],
  ])('%s', (_, expressions, want) => {
    expect(nextRun(expressions, FROM)?.toISOString()).toBe(want);
  });
});

describe('splitZone', () => {
  it('separates a CRON_TZ or TZ prefix from the cron fields', () => {
    expect([
      splitZone('CRON_TZ=Europe/Berlin 0 7 * * MON'),
      splitZone('TZ=UTC  5 * * * *'),
      splitZone(' 0 2 * * *'),
    ]).toEqual([
      { cron: '0 7 * * MON', zone: 'Europe/Berlin' },
      { cron: '5 * * * *', zone: 'UTC' },
      { cron: '0 2 * * *' },
    ]);
  });
});
