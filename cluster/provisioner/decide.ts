/**
 * What the provisioner does for a claim or a volume, from a snapshot of what it sees: pure
 * functions over plain data, tested as tables. Level-triggered: the answer depends on the
 * objects as they are now, never on the event that brought them.
 */
import type { V1PersistentVolume, V1PersistentVolumeClaim, V1StorageClass } from '@kubernetes/client-node';
import { isAbsolute, relative } from 'node:path';
import {
  BETA_STORAGE_PROVISIONER,
  FINALIZER,
  persistentVolume,
  PROVISIONED_BY,
  SELECTED_NODE,
  STORAGE_PROVISIONER,
  volumePath,
} from './volume.ts';

export interface Provisioner {
  readonly name: string;
  /** The directory volumes are made in; nothing outside it is ever removed. */
  readonly root: string;
}

export type ClaimDecision =
  | { readonly action: 'wait'; readonly why: string }
  | { readonly action: 'provision'; readonly volume: V1PersistentVolume; readonly path: string };

interface ClaimSnapshot {
  readonly claim: V1PersistentVolumeClaim;
  readonly cls: V1StorageClass | undefined;
  readonly existing: V1PersistentVolume | undefined;
  readonly self: Provisioner;
}

const annotation = (claim: V1PersistentVolumeClaim, key: string): string | undefined =>
  claim.metadata?.annotations?.[key];

/** Reasons to leave a claim alone, in the order they are asked; the first that holds wins. */
const WAITS: readonly (readonly [string, (s: ClaimSnapshot) => boolean])[] = [
  ['the claim is being deleted', (s) => s.claim.metadata?.deletionTimestamp !== undefined],
  ['the claim names its volume already', (s) => (s.claim.spec?.volumeName ?? '') !== ''],
  ["the claim's class is not ours", (s) => s.cls?.provisioner !== s.self.name],
  [
    'kube-controller-manager has not handed the claim to this provisioner',
    (s) => (annotation(s.claim, STORAGE_PROVISIONER) ?? annotation(s.claim, BETA_STORAGE_PROVISIONER)) !== s.self.name,
  ],
  [
    'no Pod using the claim has been scheduled',
    (s) => s.cls?.volumeBindingMode === 'WaitForFirstConsumer' && annotation(s.claim, SELECTED_NODE) === undefined,
  ],
  ['block volumes are not provided', (s) => s.claim.spec?.volumeMode === 'Block'],
  ['its volume exists; kube-controller-manager binds them', (s) => s.existing !== undefined],
];

/**
 * A claim is ours to provision once kube-controller-manager has handed it to this provisioner
 * and, for WaitForFirstConsumer, the scheduler has chosen its node; and only once.
 */
export function decideClaim(
  claim: V1PersistentVolumeClaim,
  cls: V1StorageClass | undefined,
  existing: V1PersistentVolume | undefined,
  self: Provisioner,
): ClaimDecision {
  const snapshot = { claim, cls, existing, self };
  const wait = WAITS.find(([, holds]) => holds(snapshot));
  if (wait !== undefined || cls === undefined) return { action: 'wait', why: wait?.[0] ?? 'no class' };
  const volume = persistentVolume(claim, cls, self.name, self.root);
  return { action: 'provision', volume, path: volumePath(volume) ?? '' };
}

export type VolumeDecision =
  | { readonly action: 'none' }
  /** Released with reclaimPolicy Delete: remove the directory, then the volume. */
  | { readonly action: 'delete'; readonly path: string | undefined }
  /** Being deleted: remove the directory if the volume's policy says so, then let it go. */
  | { readonly action: 'finalize'; readonly path: string | undefined };

/** The volume's directory, if it is one this provisioner may remove. */
function ownPath(pv: V1PersistentVolume, self: Provisioner): string | undefined {
  const path = volumePath(pv);
  if (path === undefined) return undefined;
  const below = relative(self.root, path);
  return below !== '' && !below.startsWith('..') && !isAbsolute(below) ? path : undefined;
}

export function decideVolume(pv: V1PersistentVolume, self: Provisioner): VolumeDecision {
  if (pv.metadata?.annotations?.[PROVISIONED_BY] !== self.name) return { action: 'none' };
  const reclaimDelete = (pv.spec?.persistentVolumeReclaimPolicy ?? 'Delete') === 'Delete';
  if (pv.metadata.deletionTimestamp !== undefined) {
    return (pv.metadata.finalizers ?? []).includes(FINALIZER)
      ? { action: 'finalize', path: reclaimDelete ? ownPath(pv, self) : undefined }
      : { action: 'none' };
  }
  if (pv.status?.phase === 'Released' && reclaimDelete) return { action: 'delete', path: ownPath(pv, self) };
  return { action: 'none' };
}
