import type { V1Lease } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { leaderOf, type LeaderView } from './leader.ts';

const NOW = new Date('2026-03-01T10:00:30Z');

interface LeaseFields {
  readonly holder?: string;
  /** A Date, or the RFC 3339 text objects from a watch keep. */
  readonly renewTime?: Date | string;
  readonly acquireTime?: Date | string;
  readonly leaseDurationSeconds?: number;
}

function lease(fields: LeaseFields): V1Lease {
  return {
    metadata: { name: 'kubedag-operator' },
    spec: {
      ...(fields.holder === undefined ? {} : { holderIdentity: fields.holder }),
      ...(fields.renewTime === undefined ? {} : { renewTime: fields.renewTime as Date }),
      ...(fields.acquireTime === undefined ? {} : { acquireTime: fields.acquireTime as Date }),
      ...(fields.leaseDurationSeconds === undefined ? {} : { leaseDurationSeconds: fields.leaseDurationSeconds }),
    },
  };
}

describe('leaderOf', () => {
  it.each<[string, V1Lease | undefined]>([
    ['there is no lease', undefined],
    ['the lease has no spec', { metadata: { name: 'kubedag-operator' } }],
    ['the lease has no holder', lease({ renewTime: '2026-03-01T10:00:29Z' })],
    ['the holder is empty', lease({ holder: '', renewTime: '2026-03-01T10:00:29Z' })],
  ])('finds no leader when %s', (_, given) => {
    expect(leaderOf(given, NOW)).toBeUndefined();
  });

  it('describes the holder of a fresh lease as the active leader', () => {
    const found = leaderOf(
      lease({
        holder: 'kubedag-operator-7d9f_42',
        renewTime: new Date('2026-03-01T10:00:25Z'),
        acquireTime: '2026-03-01T09:00:00.123456Z',
        leaseDurationSeconds: 15,
      }),
      NOW,
    );
    expect(found).toEqual<LeaderView>({
      instanceId: 'kubedag-operator-7d9f_42',
      host: 'kubedag-operator-7d9f',
      status: 'active',
      startedAt: '2026-03-01T09:00:00Z',
    });
  });

  it.each<[string, string, LeaseFields]>([
    [
      'renewed within its duration',
      'active',
      { renewTime: new Date('2026-03-01T10:00:20Z'), leaseDurationSeconds: 15 },
    ],
    [
      'renewed exactly its duration ago',
      'active',
      { renewTime: new Date('2026-03-01T10:00:15Z'), leaseDurationSeconds: 15 },
    ],
    [
      'renewed longer ago than its duration',
      'inactive',
      { renewTime: new Date('2026-03-01T10:00:14.999Z'), leaseDurationSeconds: 15 },
    ],
    [
      'renewed 15 s ago without a duration (15 s by default)',
      'active',
      { renewTime: new Date('2026-03-01T10:00:15Z') },
    ],
    [
      'renewed 16 s ago without a duration (15 s by default)',
      'inactive',
      { renewTime: new Date('2026-03-01T10:00:14Z') },
    ],
    [
      'renewed 50 s ago with a duration of 60 s',
      'active',
      { renewTime: new Date('2026-03-01T09:59:40Z'), leaseDurationSeconds: 60 },
    ],
    ['with a renew time as RFC 3339 text with microseconds', 'active', { renewTime: '2026-03-01T10:00:29.123456Z' }],
    [
      'with a stale renew time as RFC 3339 text with microseconds',
      'inactive',
      { renewTime: '2026-03-01T09:00:00.000001Z' },
    ],
    ['with a renew time with an offset', 'active', { renewTime: '2026-03-01T12:00:29+02:00' }],
    ['never renewed', 'inactive', {}],
    ['with a renew time that is no time', 'inactive', { renewTime: 'soon' }],
  ])('a lease %s makes its holder %s', (_, status, fields) => {
    expect(leaderOf(lease({ holder: 'host_1', ...fields }), NOW)?.status).toBe(status);
  });

  it.each<[string, string]>([
    ['kubedag-operator-7d9f_42', 'kubedag-operator-7d9f'],
    ['my_host_name_42', 'my_host_name'],
    ['plainhost', 'plainhost'],
  ])('takes the host of identity %s to be %s', (holder, host) => {
    expect(leaderOf(lease({ holder, renewTime: NOW }), NOW)).toMatchObject({ instanceId: holder, host });
  });

  it.each<[string, Date | string | undefined, string]>([
    ['a Date', new Date('2026-03-01T09:00:00.500Z'), '2026-03-01T09:00:00Z'],
    ['RFC 3339 text with microseconds', '2026-03-01T09:00:00.123456Z', '2026-03-01T09:00:00Z'],
    ['absent', undefined, ''],
  ])('gives the acquire time as startedAt when it is %s', (_, acquireTime, startedAt) => {
    expect(
      leaderOf(lease({ holder: 'h_1', renewTime: NOW, ...(acquireTime === undefined ? {} : { acquireTime }) }), NOW)
        ?.startedAt,
    ).toBe(startedAt);
  });
});
