/**
 * The objects the provisioner makes, as plain data: its StorageClass, and the
 * PersistentVolume for a claim, shaped as sig-storage's external provisioners shape theirs
 * (named `pvc-<claim uid>`, annotated provisioned-by, pre-bound to the claim through claimRef)
 * so that kube-controller-manager's PV controller binds the two.
 */
import { join } from 'node:path';
import type {
  V1PersistentVolume,
  V1PersistentVolumeClaim,
  V1PersistentVolumeSpec,
  V1StorageClass,
} from '@kubernetes/client-node';

export const PROVISIONED_BY = 'pv.kubernetes.io/provisioned-by';
export const SELECTED_NODE = 'volume.kubernetes.io/selected-node';
export const STORAGE_PROVISIONER = 'volume.kubernetes.io/storage-provisioner';
export const BETA_STORAGE_PROVISIONER = 'volume.beta.kubernetes.io/storage-provisioner';
export const DEFAULT_CLASS = 'storageclass.kubernetes.io/is-default-class';
/** Held on our PersistentVolumes until their directory is gone, whoever deletes them. */
export const FINALIZER = 'kubedag.io/local-volume';

export function storageClass(name: string, provisioner: string): V1StorageClass {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name, annotations: { [DEFAULT_CLASS]: 'true' } },
    provisioner,
    // The scheduler picks the node first; the volume is then made where the Pod will run.
    volumeBindingMode: 'WaitForFirstConsumer',
    reclaimPolicy: 'Delete',
    allowVolumeExpansion: false,
  };
}

export const volumeName = (claim: V1PersistentVolumeClaim): string => `pvc-${claim.metadata?.uid ?? ''}`;

/** ReadWriteMany and ReadOnlyMany claims are used from several nodes at once. */
export function shared(claim: V1PersistentVolumeClaim): boolean {
  return (claim.spec?.accessModes ?? []).some((mode) => mode === 'ReadWriteMany' || mode === 'ReadOnlyMany');
}

/**
 * Where the volume lives. A claim used from one node is a `local` volume tied to the node the
 * scheduler chose; all local nodes share this machine's disk, so a claim used from many is a
 * `hostPath` volume without node affinity, mountable on every node.
 */
function source(
  claim: V1PersistentVolumeClaim,
  path: string,
): Pick<V1PersistentVolumeSpec, 'local' | 'hostPath' | 'nodeAffinity'> {
  const node = claim.metadata?.annotations?.[SELECTED_NODE];
  if (shared(claim) || node === undefined) return { hostPath: { path, type: 'Directory' } };
  return {
    local: { path },
    nodeAffinity: {
      required: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }],
      },
    },
  };
}

/** What the volume takes from its claim: size (the request), access modes, mode, and the claim itself. */
function fromClaim(
  claim: V1PersistentVolumeClaim,
): Pick<V1PersistentVolumeSpec, 'capacity' | 'accessModes' | 'volumeMode' | 'claimRef'> {
  const { namespace, name, uid, resourceVersion } = claim.metadata ?? {};
  return {
    capacity: { storage: claim.spec?.resources?.requests?.storage ?? '1Gi' },
    accessModes: claim.spec?.accessModes ?? ['ReadWriteOnce'],
    volumeMode: claim.spec?.volumeMode ?? 'Filesystem',
    claimRef: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace, name, uid, resourceVersion },
  };
}

export function persistentVolume(
  claim: V1PersistentVolumeClaim,
  cls: V1StorageClass,
  provisioner: string,
  root: string,
): V1PersistentVolume {
  const name = volumeName(claim);
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, annotations: { [PROVISIONED_BY]: provisioner }, finalizers: [FINALIZER] },
    spec: {
      ...fromClaim(claim),
      persistentVolumeReclaimPolicy: cls.reclaimPolicy ?? 'Delete',
      storageClassName: cls.metadata?.name ?? '',
      ...(cls.mountOptions === undefined ? {} : { mountOptions: cls.mountOptions }),
      ...source(claim, join(root, name)),
    },
  };
}

/** The directory of one of our volumes, whichever kind it is. */
export function volumePath(pv: V1PersistentVolume): string | undefined {
  return pv.spec?.local?.path ?? pv.spec?.hostPath?.path;
}
