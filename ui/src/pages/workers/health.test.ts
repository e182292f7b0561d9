import { describe, expect, it } from 'vitest';
import { healthLook, orderedLabels } from './health.ts';

describe('a worker as the page shows it', () => {
  it.each<[string, string, ReturnType<typeof healthLook>]>([
    ['a fresh heartbeat is healthy', 'WORKER_HEALTH_STATUS_HEALTHY', { text: 'Healthy', tone: 'success' }],
    [
      'a heartbeat 5 to 15 s old is a warning',
      'WORKER_HEALTH_STATUS_WARNING',
      { text: 'Late heartbeat', tone: 'warning' },
    ],
    ['an older heartbeat is unhealthy', 'WORKER_HEALTH_STATUS_UNHEALTHY', { text: 'Unhealthy', tone: 'failure' }],
    [
      'a token this build does not know is shown plainly',
      'WORKER_HEALTH_STATUS_DRAINING',
      { text: 'draining', tone: 'neutral' },
    ],
  ])('%s', (_, token, want) => {
    expect(healthLook(token)).toEqual(want);
  });

  it('lists the labels people set before the cluster’s own, each group by key', () => {
    const labels = {
      'kubernetes.io/os': 'linux',
      zone: 'b',
      gpu: 'true',
      'node-role.kubernetes.io/worker': '',
      'example.com/team': 'data',
      'topology.k8s.io/zone': 'b',
    };
    expect(orderedLabels(labels)).toEqual({
      own: [
        ['example.com/team', 'data'],
        ['gpu', 'true'],
        ['zone', 'b'],
      ],
      system: [
        ['kubernetes.io/os', 'linux'],
        ['node-role.kubernetes.io/worker', ''],
        ['topology.k8s.io/zone', 'b'],
      ],
    });
  });
});
