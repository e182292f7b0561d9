import { describe, expect, it } from 'vitest';
import { Expectations } from './expectations.ts';

/** A clock the test moves by hand. */
function manualClock(): { now: () => Date; advance: (ms: number) => void } {
  let at = Date.parse('2026-01-01T00:00:00Z');
  return { now: () => new Date(at), advance: (ms) => (at += ms) };
}

describe('Expectations', () => {
  it('expects a created object until the cache shows it', () => {
    const clock = manualClock();
    const expectations = new Expectations(clock);
    expectations.expect('pod-a');
    expectations.expect('pod-b');
    expect([...expectations.pending(new Set())]).toEqual(['pod-a', 'pod-b']);
    expect([...expectations.pending(new Set(['pod-a']))]).toEqual(['pod-b']);
    // Once shown, an object is not expected again even if it leaves the cache later.
    expect([...expectations.pending(new Set())]).toEqual(['pod-b']);
  });

  it('forgets an expectation after a minute, so a lost watch event cannot hold it forever', () => {
    const clock = manualClock();
    const expectations = new Expectations(clock);
    expectations.expect('pod-a');
    clock.advance(60_000);
    expect(expectations.pending(new Set()).size).toBe(1);
    clock.advance(1);
    expect(expectations.pending(new Set()).size).toBe(0);
  });

  it('counts claims until they are released, seen in the cache, or a minute old', () => {
    const clock = manualClock();
    const expectations = new Expectations(clock);
    expectations.claim(['a', 'b', 'c']);
    expect(expectations.claimedCount(new Set())).toBe(3);
    expectations.release(['a']);
    expect(expectations.claimedCount(new Set(['b']))).toBe(1);
    clock.advance(60_001);
    expect(expectations.claimedCount(new Set())).toBe(0);
  });
});
