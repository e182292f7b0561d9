import { describe, expect, it } from 'vitest';
import { canAcquire, nextLeaseSpec } from './leader.ts';

const now = new Date('2026-01-01T00:01:00Z');
const lease = (holder: string, renewed: string, duration = 15): Parameters<typeof canAcquire>[0] => ({ spec: { holderIdentity: holder, renewTime: new Date(renewed), leaseDurationSeconds: duration } });

describe('canAcquire', () => {
  const cases = [
    { name: 'takes a Lease that does not exist', lease: undefined, want: true },
    { name: 'renews its own Lease', lease: lease('me', '2026-01-01T00:00:59Z'), want: true },
    { name: 'leaves a Lease another instance renewed recently', lease: lease('other', '2026-01-01T00:00:50Z'), want: false },
    { name: 'takes a Lease whose holder stopped renewing it', lease: lease('other', '2026-01-01T00:00:40Z'), want: true },
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
