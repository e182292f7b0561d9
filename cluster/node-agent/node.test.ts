import { describe, expect, it } from 'vitest';
import { leaseSpec, nodeStatus, type NodeIdentity } from './node.ts';

const identity: NodeIdentity = { name: 'node-1', labels: {}, port: 10250, kubernetesVersion: 'v1.37.1' };
const t0 = new Date('2026-01-01T00:00:00Z');
const t1 = new Date('2026-01-01T00:01:00Z');

describe('nodeStatus', () => {
  it('reports the node Ready with a heartbeat at the given time', () => {
    const ready = nodeStatus(identity, t0).conditions?.find((c) => c.type === 'Ready');
    expect(ready).toMatchObject({
      status: 'True',
      reason: 'KubeletReady',
      lastHeartbeatTime: t0,
      lastTransitionTime: t0,
    });
  });

  it('moves the heartbeat on but keeps the transition time of a condition that did not change', () => {
    const ready = nodeStatus(identity, t1, nodeStatus(identity, t0)).conditions?.find((c) => c.type === 'Ready');
    expect(ready).toMatchObject({ lastHeartbeatTime: t1, lastTransitionTime: t0 });
  });

  it('takes a new transition time for a condition whose status changed', () => {
    const before = { conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: t0 }] };
    expect(nodeStatus(identity, t1, before).conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime).toEqual(
      t1,
    );
  });

  it('gives the log endpoint port to kube-apiserver', () => {
    expect(nodeStatus(identity, t0).daemonEndpoints?.kubeletEndpoint?.Port).toBe(10250);
  });

  it('declares ExtendWebSocketsToKubelet, so that kube-apiserver passes WebSocket exec requests on unchanged', () => {
    expect(nodeStatus(identity, t0).declaredFeatures).toEqual(['ExtendWebSocketsToKubelet']);
  });
});

describe('leaseSpec', () => {
  it('is held by the node and renewed at the given time, written with microseconds', () => {
    const spec = leaseSpec(identity, new Date('2026-01-01T00:00:00.250Z'));
    expect(spec.holderIdentity).toBe('node-1');
    expect(spec.leaseDurationSeconds).toBe(40);
    expect(spec.renewTime?.toISOString()).toBe('2026-01-01T00:00:00.250000Z');
  });
});
