import { describe, expect, it } from 'vitest';
import { goDurationMs } from './go-duration.ts';

describe('goDurationMs reads durations as Go time.ParseDuration does', () => {
  it.each([
    ['30s', 30_000],
    ['1m30s', 90_000],
    ['1.5h', 5_400_000],
    ['250ms', 250],
    ['1500us', 1.5],
    ['0', 0],
    ['-2s', -2000],
    ['.5s', 500],
  ])('%s is %d ms', (text, ms) => {
    expect(goDurationMs(text)).toBe(ms);
  });

  it.each(['', '5', '1d', 's', '1s2', ' 1s', '1 s', '--1s'])('refuses %j', (text) => {
    expect(goDurationMs(text)).toBeUndefined();
  });
});
