/**
 * A Pod's volumes as directories on the host, made before its containers start: emptyDir,
 * Secret, ConfigMap, downward API and projected volumes (written under the Pod's state),
 * hostPath, and persistentVolumeClaim (and ephemeral) volumes through their bound
 * PersistentVolume's local or hostPath directory. fsGroup is applied as the kubelet applies it.
 */
import { chmod, mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { V1PersistentVolume, V1PersistentVolumeClaim, V1Pod, V1Volume } from '@kubernetes/client-node';
import { isNotFound } from '../../core/kube/errors.ts';
import { ConfigError, configMapData, fieldValue, secretData, type Sources } from './environment.ts';
import { applyOwnership } from './ownership.ts';

/** A volume that cannot be mounted yet (an unbound claim): the container waits in ContainerCreating. */
export class VolumeNotReady extends Error {}

export interface PreparedVolume {
  /** The directory (or file) on the host that is mounted. */
  readonly path: string;
  /** Mounted read-only whatever the mount asks: the kubelet's atomic-writer volumes, read-only claims. */
  readonly readOnly: boolean;
}

async function writeFiles(dir: string, files: Record<string, string>, mode: number | undefined): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    const target = join(dir, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
    await chmod(target, mode ?? 0o644);
  }
}

/** Applies a volume's `items` list (key -> path), or keeps every key as its own file. */
function selectItems(
  data: Record<string, string>,
  items: readonly { key: string; path: string }[] | undefined,
): Record<string, string> {
  if (items === undefined || items.length === 0) return data;
  return Object.fromEntries(
    items.flatMap((item) => (data[item.key] === undefined ? [] : [[item.path, data[item.key] ?? '']])),
  );
}

type Projection = NonNullable<NonNullable<V1Volume['projected']>['sources']>[number];

async function projectedFiles(
  pod: V1Pod,
  projections: readonly Projection[],
  sources: Sources,
): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const source of projections) Object.assign(files, await projectionFiles(pod, source, sources));
  return files;
}

async function projectionFiles(pod: V1Pod, source: Projection, sources: Sources): Promise<Record<string, string>> {
  const namespace = pod.metadata?.namespace ?? 'default';
  if (source.serviceAccountToken)
    return { [source.serviceAccountToken.path]: await boundToken(pod, source.serviceAccountToken, sources) };
  if (source.configMap)
    return selectItems(
      (await configMapData(sources, namespace, source.configMap.name ?? '', source.configMap.optional === true)) ?? {},
      source.configMap.items,
    );
  if (source.secret)
    return selectItems(
      (await secretData(sources, namespace, source.secret.name ?? '', source.secret.optional === true)) ?? {},
      source.secret.items,
    );
  return Object.fromEntries(
    (source.downwardAPI?.items ?? []).map((item) => [item.path, item.fieldRef ? fieldValue(pod, item.fieldRef) : '']),
  );
}

/** Like the kubelet: a token bound to this Pod, requested through the TokenRequest API. */
async function boundToken(
  pod: V1Pod,
  projection: NonNullable<Projection['serviceAccountToken']>,
  sources: Sources,
): Promise<string> {
  const token = await sources.api.createNamespacedServiceAccountToken({
    name: pod.spec?.serviceAccountName ?? 'default',
    namespace: pod.metadata?.namespace ?? 'default',
    body: {
      spec: {
        audiences: projection.audience === undefined ? [] : [projection.audience],
        expirationSeconds: projection.expirationSeconds ?? 3607,
        boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.metadata?.name ?? '', uid: pod.metadata?.uid ?? '' },
      },
    },
  });
  return token.status?.token ?? '';
}

/** The directory of a PersistentVolume on this host: `local.path`, or `hostPath.path`. */
export function volumeDirectory(pv: V1PersistentVolume): { path: string; managed: boolean } | undefined {
  // The kubelet manages ownership of local volumes, never of hostPath ones.
  if (pv.spec?.local) return { path: pv.spec.local.path, managed: true };
  if (pv.spec?.hostPath) return { path: pv.spec.hostPath.path, managed: false };
  return undefined;
}

/** The claim, when it is bound; an unbound or missing claim is waited for, as the kubelet does. */
async function boundClaim(
  pod: V1Pod,
  claimName: string,
  sources: Sources,
  ownerUid: string | undefined,
): Promise<V1PersistentVolumeClaim & { spec: { volumeName: string } }> {
  const namespace = pod.metadata?.namespace ?? 'default';
  const claim = await sources.api
    .readNamespacedPersistentVolumeClaim({ name: claimName, namespace })
    .catch((error: unknown) => {
      if (isNotFound(error)) throw new VolumeNotReady(`persistentvolumeclaim "${claimName}" not found`);
      throw error;
    });
  if (ownerUid !== undefined && !(claim.metadata?.ownerReferences ?? []).some((o) => o.uid === ownerUid))
    throw new ConfigError(
      `PVC ${namespace}/${claimName} was not created for pod ${namespace}/${pod.metadata?.name ?? ''} (pod is not owner)`,
    );
  const volumeName = claim.spec?.volumeName ?? '';
  if (volumeName === '' || claim.status?.phase !== 'Bound')
    throw new VolumeNotReady(`waiting for persistentvolumeclaim "${claimName}" to be bound`);
  return { ...claim, spec: { ...claim.spec, volumeName } };
}

/** Claim -> bound PersistentVolume -> its directory on this host. */
async function claimDirectory(
  pod: V1Pod,
  claimName: string,
  sources: Sources,
  ownerUid?: string,
): Promise<{ path: string; managed: boolean }> {
  const claim = await boundClaim(pod, claimName, sources, ownerUid);
  const volumeName = claim.spec.volumeName;
  const pv = await sources.api.readPersistentVolume({ name: volumeName });
  if (pv.spec?.claimRef?.uid !== claim.metadata?.uid)
    throw new VolumeNotReady(`persistentvolume "${volumeName}" is not bound to claim "${claimName}"`);
  const dir = volumeDirectory(pv);
  if (dir === undefined)
    throw new ConfigError(`persistentvolume "${volumeName}": this node agent mounts local and hostPath volumes only`);
  return dir;
}

async function hostPathVolume(source: NonNullable<V1Volume['hostPath']>): Promise<string> {
  const type = source.type ?? '';
  if (type === 'DirectoryOrCreate') await mkdir(source.path, { recursive: true, mode: 0o755 });
  if (type === 'FileOrCreate') {
    await mkdir(dirname(source.path), { recursive: true });
    await writeFile(source.path, '', { flag: 'a', mode: 0o644 });
  }
  if (type === 'Directory' || type === 'File') {
    const found = await stat(source.path).catch(() => undefined);
    if (found === undefined || found.isDirectory() !== (type === 'Directory'))
      throw new VolumeNotReady(`hostPath type check failed: ${source.path} is not a ${type.toLowerCase()}`);
  }
  return source.path;
}

/** Writes or finds a volume's directory; `dir` is where the agent keeps this Pod's copy. */
async function materialise(
  pod: V1Pod,
  volume: V1Volume,
  dir: string,
  sources: Sources,
): Promise<PreparedVolume & { managed: boolean }> {
  const namespace = pod.metadata?.namespace ?? 'default';
  if (volume.hostPath) return { path: await hostPathVolume(volume.hostPath), readOnly: false, managed: false };
  if (volume.emptyDir) {
    await mkdir(dir, { recursive: true });
    // The kubelet's emptyDir is open to every user of the Pod.
    await chmod(dir, 0o777);
    return { path: dir, readOnly: false, managed: true };
  }
  if (volume.persistentVolumeClaim) {
    const claim = await claimDirectory(pod, volume.persistentVolumeClaim.claimName, sources);
    return { ...claim, readOnly: volume.persistentVolumeClaim.readOnly === true };
  }
  if (volume.ephemeral)
    return {
      ...(await claimDirectory(pod, `${pod.metadata?.name ?? ''}-${volume.name}`, sources, pod.metadata?.uid)),
      readOnly: false,
    };
  const files = await atomicWriterFiles(pod, volume, sources, namespace);
  if (files === undefined) throw new ConfigError(`volume "${volume.name}": this node agent does not support its type`);
  await writeFiles(dir, files.data, files.mode);
  return { path: dir, readOnly: true, managed: true };
}

/** Secret, ConfigMap, downward API and projected volumes: files the kubelet writes and mounts read-only. */
async function atomicWriterFiles(
  pod: V1Pod,
  volume: V1Volume,
  sources: Sources,
  namespace: string,
): Promise<{ data: Record<string, string>; mode: number | undefined } | undefined> {
  if (volume.secret) {
    const data = await secretData(sources, namespace, volume.secret.secretName ?? '', volume.secret.optional === true);
    return { data: selectItems(data ?? {}, volume.secret.items), mode: volume.secret.defaultMode };
  }
  if (volume.configMap) {
    const data = await configMapData(
      sources,
      namespace,
      volume.configMap.name ?? '',
      volume.configMap.optional === true,
    );
    return { data: selectItems(data ?? {}, volume.configMap.items), mode: volume.configMap.defaultMode };
  }
  if (volume.downwardAPI) {
    const data = Object.fromEntries(
      (volume.downwardAPI.items ?? []).map((item) => [item.path, item.fieldRef ? fieldValue(pod, item.fieldRef) : '']),
    );
    return { data, mode: volume.downwardAPI.defaultMode };
  }
  if (volume.projected)
    return {
      data: await projectedFiles(pod, volume.projected.sources ?? [], sources),
      mode: volume.projected.defaultMode,
    };
  return undefined;
}

/**
 * A volume ready to mount, its ownership given to the Pod's fsGroup where the kubelet would
 * (not hostPath volumes, not read-only claims).
 */
export async function prepareVolume(
  pod: V1Pod,
  volume: V1Volume,
  dir: string,
  sources: Sources,
): Promise<PreparedVolume> {
  const { managed, ...prepared } = await materialise(pod, volume, dir, sources);
  const fsGroup = pod.spec?.securityContext?.fsGroup;
  const claimReadOnly = volume.persistentVolumeClaim?.readOnly === true;
  if (fsGroup !== undefined && managed && !claimReadOnly) {
    applyOwnership(
      prepared.path,
      fsGroup,
      prepared.readOnly,
      pod.spec?.securityContext?.fsGroupChangePolicy === 'OnRootMismatch' ? 'OnRootMismatch' : 'Always',
    );
  }
  return prepared;
}
