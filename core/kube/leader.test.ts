import { describe, expect, it } from 'vitest';
import { attemptBudgetMs, canAcquire, nextLeaseSpec, renewDeadlineMs, stillLeading } from './leader.ts';

const now = new Date('2026-01-01T00:01:00Z');
const lease = (holder: string, renewed: string, duration = 15): Parameters<typeof canAcquire>[0] => ({
  spec: { holderIdentity: holder, renewTime: new Date(renewed), leaseDurationSeconds: duration },
});

describe('canAcquire', () => {
  const cases = [
    { name: 'takes a Lease that does not exist', lease: undefined, want: true },
    { name: 'renews its own Lease', lease: lease('me', '2026-01-01T00:00:59Z'), want: true },
    {
      name: 'leaves a Lease another instance renewed recently',
      lease: lease('other', '2026-01-01T00:00:50Z'),
      want: false,
    },
    {
      name: 'takes a Lease whose holder stopped renewing it',
      lease: lease('other', '2026-01-01T00:00:40Z'),
      want: true,
    },
    { name: 'takes a released Lease', lease: lease('', '2026-01-01T00:00:59Z'), want: true },
  ];
  it.each(cases)('$name', ({ lease: l, want }) => {
    expect(canAcquire(l, 'me', now)).toBe(want);
  });
});

describe('nextLeaseSpec', () => {
  it('counts a transition when taking over and keeps the acquire time when renewing', () => {
    const taken = nextLeaseSpec(lease('other', '2026-01-01T00:00:00Z'), 'me', 15, now);
    expect(taken).toMatchObject({ holderIdentity: 'me', leaseTransitions: 1, leaseDurationSeconds: 15 });
    expect(taken.renewTime?.toISOString()).toBe('2026-01-01T00:01:00.000000Z');
    const renewed = nextLeaseSpec({ spec: { ...taken } }, 'me', 15, new Date('2026-01-01T00:01:05Z'));
    expect(renewed.leaseTransitions).toBe(1);
    expect(new Date(renewed.acquireTime ?? 0).getTime()).toBe(now.getTime());
  });
});

describe('renewDeadlineMs', () => {
  const cases = [
    {
      name: 'leaves a 10 s Lease with 2 s retries 6 s of tries, so a leader that cannot renew stops by 8 s',
      duration: 10,
      retry: 2000,
      want: 6000,
    },
    { name: 'leaves a 2 s Lease with 500 ms retries 1.1 s of tries', duration: 2, retry: 500, want: 1100 },
    { name: 'never leaves less than one retry period', duration: 1, retry: 1000, want: 1000 },
  ];
  it.each(cases)('$name', ({ duration, retry, want }) => {
    expect(renewDeadlineMs(duration, retry)).toBeCloseTo(want);
  });
});

describe('stillLeading (a renew window of 6 s opened at 2 s)', () => {
  const cases = [
    { name: 'an instance that renewed leads', renewed: true, leading: false, now: 60_000, want: true },
    {
      name: 'a leader whose try failed leads on while its renew window is open',
      renewed: false,
      leading: true,
      now: 7_999,
      want: true,
    },
    {
      name: 'a leader whose tries failed for the whole window stops leading',
      renewed: false,
      leading: true,
      now: 8_000,
      want: false,
    },
    {
      name: 'an instance that did not lead does not start leading without a renewal',
      renewed: false,
      leading: false,
      now: 3_000,
      want: false,
    },
  ];
  it.each(cases)('$name', ({ renewed, leading, now: at, want }) => {
    expect(stillLeading(renewed, leading, 2_000, 6_000, at)).toBe(want);
  });
});

describe('attemptBudgetMs (a 10 s Lease, a renew window of 6 s opened at 2 s)', () => {
  const cases = [
    {
      name: 'a leader waits for answers until its renew window closes, and no longer',
      leading: true,
      now: 3_000,
      want: 5_000,
    },
    { name: 'a leader whose window has closed waits no more', leading: true, now: 9_000, want: 0 },
    { name: 'an instance that does not lead waits a lease duration at most', leading: false, now: 3_000, want: 10_000 },
  ];
  it.each(cases)('$name', ({ leading, now: at, want }) => {
    expect(attemptBudgetMs(leading, 2_000, 6_000, 10, at)).toBe(want);
  });
});
