/**
 * Checks of the volumes a step Pod declares and of where the step container mounts them:
 * names, exactly one source of the supported kinds, sizes and paths. Whether each mount names
 * a declared volume depends on both lists after merging, in kubernetes-rules.ts.
 */
import type { V1KeyToPath, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import { closest } from 'fastest-levenshtein';
import { configKeyProblem, dnsLabelProblem, dnsSubdomainProblem } from './kube-names.ts';
import { VOLUME_TYPES } from './kubernetes-pod-schema.ts';
import { childPath, eachItem, issue, issueIf, type DagIssue } from './issues.ts';
import { isNegative, parseQuantity } from './quantity.ts';

/** Volume names Kubedag keeps for the volumes it adds itself (the workspace). */
export const RESERVED_VOLUME_PREFIX = 'kubedag-';

/** Volume sources Kubernetes has that a DAG may not use, recognised to refuse them by name. */
const OTHER_VOLUME_TYPES = [
  'awsElasticBlockStore',
  'azureDisk',
  'azureFile',
  'cephfs',
  'cinder',
  'csi',
  'downwardAPI',
  'ephemeral',
  'fc',
  'flexVolume',
  'flocker',
  'gcePersistentDisk',
  'gitRepo',
  'glusterfs',
  'image',
  'iscsi',
  'nfs',
  'photonPersistentDisk',
  'portworxVolume',
  'projected',
  'quobyte',
  'rbd',
  'scaleIO',
  'storageos',
  'vsphereVolume',
];
const SUPPORTED = `${VOLUME_TYPES.slice(0, -1).join(', ')} and ${VOLUME_TYPES.at(-1) ?? ''}`;

export function volumeProblems(volumes: readonly Readonly<V1Volume>[] | undefined, path: string): DagIssue[] {
  const seen = new Map<string, number>();
  return eachItem(volumes, path, (volume, at, i) => {
    const name = childPath(at, 'name');
    const first = seen.get(volume.name);
    if (first === undefined) seen.set(volume.name, i);
    return [
      ...issueIf(name, dnsLabelProblem(volume.name)),
      ...issueIf(
        name,
        volume.name.startsWith(RESERVED_VOLUME_PREFIX)
          ? `names starting with "${RESERVED_VOLUME_PREFIX}" are kept for the volumes Kubedag adds`
          : undefined,
      ),
      ...issueIf(
        name,
        first === undefined ? undefined : `"${volume.name}" is also the name of ${childPath(path, first)}`,
      ),
      ...sourceProblems(volume, at),
    ];
  });
}

function sourceProblems(volume: Readonly<V1Volume>, path: string): DagIssue[] {
  const keys = Object.keys(volume).filter((key) => key !== 'name');
  const unknown = keys.filter((key) => !(VOLUME_TYPES as readonly string[]).includes(key));
  if (unknown.length > 0) return unknown.map((key) => unsupportedSource(key, path));
  if (keys.length !== 1) return [issue(path, `needs exactly one source: ${SUPPORTED}`)];
  return settingsProblems(volume, path);
}

/** Other volume types by name; anything else as an unknown key, with the nearest type. */
function unsupportedSource(key: string, path: string): DagIssue {
  if (OTHER_VOLUME_TYPES.includes(key))
    return issue(childPath(path, key), `${key} volumes are not supported; a step Pod may use ${SUPPORTED} volumes`);
  return issue(childPath(path, key), `unknown key; did you mean "${closest(key, [...VOLUME_TYPES])}"?`);
}

function settingsProblems(volume: Readonly<V1Volume>, path: string): DagIssue[] {
  const { emptyDir, hostPath, configMap, secret, persistentVolumeClaim } = volume;
  const at = (kind: string, key: string): string => childPath(childPath(path, kind), key);
  return [
    ...sizeLimitProblems(emptyDir?.sizeLimit, at('emptyDir', 'sizeLimit')),
    ...issueIf(
      at('emptyDir', 'medium'),
      emptyDir?.medium === undefined || /^(|Memory|HugePages(-.+)?)$/.test(emptyDir.medium)
        ? undefined
        : `must be "" or Memory, not "${emptyDir.medium}"`,
    ),
    ...issueIf(
      at('hostPath', 'path'),
      hostPath === undefined ? undefined : hostPath.path.trim() === '' ? 'is empty' : dotDotProblem(hostPath.path),
    ),
    ...issueIf(
      at('configMap', 'name'),
      configMap === undefined ? undefined : dnsSubdomainProblem(configMap.name ?? ''),
    ),
    ...itemsProblems(configMap?.items, at('configMap', 'items')),
    ...issueIf(
      at('secret', 'secretName'),
      secret === undefined ? undefined : dnsSubdomainProblem(secret.secretName ?? ''),
    ),
    ...itemsProblems(secret?.items, at('secret', 'items')),
    ...issueIf(
      at('persistentVolumeClaim', 'claimName'),
      persistentVolumeClaim === undefined ? undefined : dnsSubdomainProblem(persistentVolumeClaim.claimName),
    ),
  ];
}

function sizeLimitProblems(sizeLimit: string | undefined, path: string): DagIssue[] {
  if (sizeLimit === undefined) return [];
  const value = parseQuantity(sizeLimit);
  return issueIf(path, typeof value === 'string' ? value : isNegative(value) ? 'must not be negative' : undefined);
}

function itemsProblems(items: readonly V1KeyToPath[] | undefined, path: string): DagIssue[] {
  return eachItem(items, path, (item, at) => [
    ...issueIf(childPath(at, 'key'), configKeyProblem(item.key)),
    ...issueIf(childPath(at, 'path'), relativePathProblem(item.path)),
  ]);
}

export function mountProblems(mounts: readonly Readonly<V1VolumeMount>[] | undefined, path: string): DagIssue[] {
  const seen = new Map<string, number>();
  return eachItem(mounts, path, (mount, at, i) => {
    const mountPath = childPath(at, 'mountPath');
    const first = seen.get(mount.mountPath);
    if (first === undefined) seen.set(mount.mountPath, i);
    return [
      ...issueIf(mountPath, mount.mountPath.trim() === '' ? 'is empty' : undefined),
      ...issueIf(
        mountPath,
        first === undefined ? undefined : `"${mount.mountPath}" is also the mountPath of ${childPath(path, first)}`,
      ),
      ...issueIf(
        childPath(at, 'subPath'),
        mount.subPath === undefined || mount.subPath === '' ? undefined : relativePathProblem(mount.subPath),
      ),
    ];
  });
}

function relativePathProblem(text: string): string | undefined {
  if (text.trim() === '') return 'is empty';
  if (text.startsWith('/')) return `"${text}" must be a relative path`;
  return dotDotProblem(text);
}

function dotDotProblem(text: string): string | undefined {
  return text.split('/').includes('..') ? `"${text}" must not contain ".."` : undefined;
}
