import type { V1PersistentVolume, V1PersistentVolumeClaim, V1StorageClass } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { decideClaim, decideVolume, type Provisioner } from './decide.ts';
import { FINALIZER, PROVISIONED_BY, SELECTED_NODE, STORAGE_PROVISIONER, storageClass } from './volume.ts';

const self: Provisioner = { name: 'kubedag.io/local', root: '/cluster/volumes' };
const ours = storageClass('kubedag-local', self.name);

/** A claim of our class as kube-controller-manager and the scheduler leave it, with changes. */
function claim(
  change: { without?: string[]; spec?: Partial<NonNullable<V1PersistentVolumeClaim['spec']>>; deleting?: boolean } = {},
): V1PersistentVolumeClaim {
  const annotations = Object.fromEntries(
    Object.entries({ [STORAGE_PROVISIONER]: self.name, [SELECTED_NODE]: 'node-1' }).filter(
      ([key]) => !(change.without ?? []).includes(key),
    ),
  );
  return {
    metadata: {
      name: 'data',
      namespace: 'ns',
      uid: 'c1',
      resourceVersion: '7',
      annotations,
      ...(change.deleting === true ? { deletionTimestamp: new Date() } : {}),
    },
    spec: {
      storageClassName: 'kubedag-local',
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: '2Gi' } },
      ...change.spec,
    },
  };
}

describe('decideClaim', () => {
  const waits: {
    name: string;
    claim: V1PersistentVolumeClaim;
    cls?: V1StorageClass;
    existing?: V1PersistentVolume;
    want: string;
  }[] = [
    {
      name: 'waits for the scheduler to choose a node under WaitForFirstConsumer',
      claim: claim({ without: [SELECTED_NODE] }),
      want: 'no Pod using the claim has been scheduled',
    },
    {
      name: 'waits for kube-controller-manager to hand the claim over',
      claim: claim({ without: [STORAGE_PROVISIONER] }),
      want: 'kube-controller-manager has not handed the claim to this provisioner',
    },
    {
      name: "leaves a claim of another provisioner's class alone",
      claim: claim(),
      cls: storageClass('other', 'example.com/nfs'),
      want: "the claim's class is not ours",
    },
    {
      name: 'leaves a claim whose class does not exist alone',
      claim: claim({ spec: { storageClassName: 'gone' } }),
      cls: undefined,
      want: "the claim's class is not ours",
    },
    {
      name: 'leaves a claim that names its volume alone',
      claim: claim({ spec: { volumeName: 'pv-by-hand' } }),
      want: 'the claim names its volume already',
    },
    {
      name: 'leaves a claim that is being deleted alone',
      claim: claim({ deleting: true }),
      want: 'the claim is being deleted',
    },
    {
      name: 'provisions once: an existing volume is left to kube-controller-manager to bind',
      claim: claim(),
      existing: { metadata: { name: 'pvc-c1' } },
      want: 'its volume exists; kube-controller-manager binds them',
    },
    {
      name: 'does not provide block volumes',
      claim: claim({ spec: { volumeMode: 'Block' } }),
      want: 'block volumes are not provided',
    },
  ];
  it.each(waits)('$name', ({ claim: c, existing, want, ...rest }) => {
    const cls = 'cls' in rest ? rest.cls : ours;
    expect(decideClaim(c, cls, existing, self)).toEqual({ action: 'wait', why: want });
  });

  it('provisions a ReadWriteOnce claim as a local volume on the chosen node, pre-bound to the claim', () => {
    const decision = decideClaim(claim(), ours, undefined, self);
    expect(decision).toEqual({
      action: 'provision',
      path: '/cluster/volumes/pvc-c1',
      volume: {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: 'pvc-c1', annotations: { [PROVISIONED_BY]: 'kubedag.io/local' }, finalizers: [FINALIZER] },
        spec: {
          capacity: { storage: '2Gi' },
          accessModes: ['ReadWriteOnce'],
          volumeMode: 'Filesystem',
          claimRef: {
            apiVersion: 'v1',
            kind: 'PersistentVolumeClaim',
            namespace: 'ns',
            name: 'data',
            uid: 'c1',
            resourceVersion: '7',
          },
          persistentVolumeReclaimPolicy: 'Delete',
          storageClassName: 'kubedag-local',
          local: { path: '/cluster/volumes/pvc-c1' },
          nodeAffinity: {
            required: {
              nodeSelectorTerms: [
                { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-1'] }] },
              ],
            },
          },
        },
      },
    });
  });

  it('provisions a ReadWriteMany claim as a hostPath volume every node can mount', () => {
    const decision = decideClaim(claim({ spec: { accessModes: ['ReadWriteMany'] } }), ours, undefined, self);
    expect(
      decision.action === 'provision'
        ? [decision.volume.spec?.hostPath, decision.volume.spec?.nodeAffinity, decision.volume.spec?.local]
        : decision,
    ).toEqual([{ path: '/cluster/volumes/pvc-c1', type: 'Directory' }, undefined, undefined]);
  });

  it('takes the reclaim policy from the class', () => {
    const decision = decideClaim(claim(), { ...ours, reclaimPolicy: 'Retain' }, undefined, self);
    expect(decision.action === 'provision' ? decision.volume.spec?.persistentVolumeReclaimPolicy : decision).toBe(
      'Retain',
    );
  });
});

/** One of our volumes, with changes. */
function volume(
  change: {
    phase?: string;
    reclaim?: string;
    deleting?: boolean;
    finalizers?: string[];
    path?: string;
    by?: string;
  } = {},
): V1PersistentVolume {
  return {
    metadata: {
      name: 'pvc-c1',
      annotations: { [PROVISIONED_BY]: change.by ?? self.name },
      finalizers: change.finalizers ?? [FINALIZER, 'kubernetes.io/pv-protection'],
      ...(change.deleting === true ? { deletionTimestamp: new Date() } : {}),
    },
    spec: {
      persistentVolumeReclaimPolicy: change.reclaim ?? 'Delete',
      local: { path: change.path ?? '/cluster/volumes/pvc-c1' },
    },
    status: { phase: change.phase ?? 'Bound' },
  };
}

describe('decideVolume', () => {
  const cases: { name: string; pv: V1PersistentVolume; want: ReturnType<typeof decideVolume> }[] = [
    { name: 'leaves a bound volume alone', pv: volume(), want: { action: 'none' } },
    {
      name: 'deletes a released volume with reclaim policy Delete, directory first',
      pv: volume({ phase: 'Released' }),
      want: { action: 'delete', path: '/cluster/volumes/pvc-c1' },
    },
    {
      name: 'keeps a released volume with reclaim policy Retain',
      pv: volume({ phase: 'Released', reclaim: 'Retain' }),
      want: { action: 'none' },
    },
    {
      name: 'removes the directory of a volume being deleted, then lets it go',
      pv: volume({ deleting: true }),
      want: { action: 'finalize', path: '/cluster/volumes/pvc-c1' },
    },
    {
      name: 'keeps the directory of a Retain volume being deleted, and lets it go',
      pv: volume({ deleting: true, reclaim: 'Retain' }),
      want: { action: 'finalize', path: undefined },
    },
    {
      name: 'has nothing to do for a volume being deleted once its finalizer is gone',
      pv: volume({ deleting: true, finalizers: ['kubernetes.io/pv-protection'] }),
      want: { action: 'none' },
    },
    {
      name: 'never removes a directory outside its own',
      pv: volume({ phase: 'Released', path: '/etc' }),
      want: { action: 'delete', path: undefined },
    },
    {
      name: 'never removes its root directory',
      pv: volume({ phase: 'Released', path: '/cluster/volumes' }),
      want: { action: 'delete', path: undefined },
    },
    {
      name: 'leaves volumes of other provisioners alone',
      pv: volume({ phase: 'Released', by: 'example.com/nfs' }),
      want: { action: 'none' },
    },
  ];
  it.each(cases)('$name', ({ pv, want }) => {
    expect(decideVolume(pv, self)).toEqual(want);
  });
});
