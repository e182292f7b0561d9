import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { dagRun } from '../test/builders/dag-run.ts';
import type { DagRunResource } from '../core/resources/types.ts';
import { podView, withoutManagedFields } from './informers.ts';
import { attemptOver, endSigns, podIdentity } from './run/decide/observed.ts';

/** A step Pod as the API server answered a watch, once its step had succeeded. */
const succeeded = JSON.parse(
  readFileSync(join(import.meta.dirname, '../test/fixtures/pods/step-succeeded.json'), 'utf8'),
) as V1Pod;
const unschedulable: V1Pod = {
  ...succeeded,
  status: {
    phase: 'Pending',
    conditions: [
      {
        type: 'PodScheduled',
        status: 'False',
        reason: 'Unschedulable',
        message: "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.",
      },
    ],
  },
};
/** Evicted by the taint eviction controller from a node that stopped answering: Terminating for as long as the node is away. */
const evicted: V1Pod = {
  ...succeeded,
  metadata: { ...succeeded.metadata, deletionTimestamp: new Date('2026-11-24T05:04:20Z') },
  status: {
    phase: 'Running',
    startTime: new Date('2026-11-24T05:03:00Z'),
    conditions: [
      { type: 'Ready', status: 'False' },
      {
        type: 'DisruptionTarget',
        status: 'True',
        reason: 'DeletionByTaintManager',
        message: 'Taint manager: deleting due to NoExecute taint',
      },
    ],
  },
};
const stopping: V1Pod = {
  ...succeeded,
  metadata: { ...succeeded.metadata, deletionTimestamp: new Date('2026-11-24T05:04:20Z') },
  spec: { containers: [], ...succeeded.spec, activeDeadlineSeconds: 7 },
  status: { ...succeeded.status, phase: 'Running' },
};

function deepFrozen<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const child of Object.values(value)) deepFrozen(child);
    Object.freeze(value);
  }
  return value;
}

/** Everything the operator reads of a step Pod (operator/run/decide/observed.ts, run/reconciler.ts). */
const read = (pod: V1Pod): unknown => ({
  identity: podIdentity(pod),
  endSigns: endSigns(pod),
  over: [
    attemptOver(pod, { nodes: [{ name: 'greet', status: 4, statusLabel: 'succeeded', attempt: 0 }] }),
    attemptOver(pod, { nodes: [{ name: 'greet', status: 1, statusLabel: 'running', attempt: 0 }] }),
  ],
  terminated: pod.status?.containerStatuses?.[0]?.state?.terminated,
  startTime: pod.status?.startTime,
  activeDeadlineSeconds: pod.spec?.activeDeadlineSeconds,
  owners: pod.metadata?.ownerReferences,
  labels: pod.metadata?.labels,
  name: [pod.metadata?.namespace, pod.metadata?.name, pod.metadata?.resourceVersion],
});

describe('podView', () => {
  it.each([
    ['a succeeded step Pod', succeeded],
    ['a Pod being stopped by its deadline and deleted', stopping],
    ['a Pod no node can take', unschedulable],
    ['a Pod evicted from a node that stopped answering', evicted],
  ])('keeps everything the operator reads of %s', (_what, pod) => {
    expect(read(podView(pod) as V1Pod)).toEqual(read(pod));
  });

  it('drops managedFields, the containers and the status conditions: most of the Pod', () => {
    const view = podView(succeeded);
    expect(view.metadata?.managedFields).toBeUndefined();
    expect(Object.keys(view.spec ?? {})).toEqual(['nodeName']);
    expect(Object.keys(view.status ?? {})).toEqual(['phase', 'startTime', 'containerStatuses']);
    expect(JSON.stringify(view).length).toBeLessThan(JSON.stringify(succeeded).length / 4);
  });

  it('leaves the Pod it was given as it was (it may be a write answer its caller still holds)', () => {
    const given = deepFrozen(structuredClone(succeeded));
    expect(() => podView(given)).not.toThrow();
    expect(given).toEqual(succeeded);
  });

  it('keeps the PodScheduled condition only while it is False, and says why the step waits', () => {
    expect(podView(unschedulable).status?.conditions?.map((c) => c.type)).toEqual(['PodScheduled']);
    expect(podIdentity(podView(unschedulable) as V1Pod).unschedulable).toMatch(/^0\/2 nodes are available/);
    const scheduled = {
      ...unschedulable,
      status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True' }] },
    };
    expect(podView(scheduled).status).toEqual({ phase: 'Pending' });
    expect(podIdentity(scheduled).unschedulable).toBeUndefined();
  });

  it('keeps the DisruptionTarget condition only while it is True, and says why the Pod goes', () => {
    expect(podView(evicted).status?.conditions?.map((c) => c.type)).toEqual(['DisruptionTarget']);
    expect(endSigns(podView(evicted) as V1Pod)).toEqual({
      deleteBy: '2026-11-24T05:04:20.000Z',
      disruption: 'DeletionByTaintManager',
    });
    const over = {
      ...evicted,
      status: { phase: 'Running', conditions: [{ type: 'DisruptionTarget', status: 'False' }] },
    };
    expect(podView(over).status).toEqual({ phase: 'Running' });
  });

  it('keeps a Pod without spec or status as it is', () => {
    expect(podView({ metadata: { name: 'bare' } })).toEqual({ metadata: { name: 'bare' } });
  });
});

describe('withoutManagedFields', () => {
  const run: DagRunResource = {
    metadata: {
      name: 'r1',
      resourceVersion: '7',
      managedFields: [{ manager: 'kubedag-operator', operation: 'Update' }],
    },
    spec: { dagRef: { name: 'd' } },
    status: { status: 1 },
  };

  it('drops managedFields and keeps the rest of the object', () => {
    expect(withoutManagedFields(run)).toEqual({
      metadata: { name: 'r1', resourceVersion: '7' },
      spec: { dagRef: { name: 'd' } },
      status: { status: 1 },
    });
    expect(run.metadata?.managedFields).toHaveLength(1);
  });

  it('returns an object without managedFields unchanged', () => {
    const plain = dagRun('r2').build();
    expect(withoutManagedFields(plain)).toBe(plain);
  });
});
