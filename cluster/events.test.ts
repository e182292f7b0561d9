import { describe, expect, it } from 'vitest';
import { eventFor } from './events.ts';

describe('eventFor', () => {
  const now = new Date('2026-01-01T00:00:00Z');

  it('records an event on a Pod from the kubelet of its node', () => {
    const event = eventFor(
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', uid: 'u1' } },
      { type: 'Warning', reason: 'LimitsNotEnforced', message: 'm' },
      { component: 'kubelet', host: 'node-1' },
      now,
    );
    expect(event).toMatchObject({
      metadata: { generateName: 'p.', namespace: 'ns' },
      involvedObject: { kind: 'Pod', name: 'p', uid: 'u1' },
      type: 'Warning',
      reason: 'LimitsNotEnforced',
      source: { component: 'kubelet', host: 'node-1' },
      firstTimestamp: now,
    });
  });

  it('records an event from a component that runs on no node', () => {
    const event = eventFor(
      { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c', namespace: 'ns' } },
      { type: 'Normal', reason: 'ProvisioningSucceeded', message: 'm' },
      { component: 'kubedag.io/local' },
      now,
    );
    expect([event.source, event.reportingInstance]).toEqual([{ component: 'kubedag.io/local' }, 'kubedag.io/local']);
  });
});
