/**
 * What a container sees besides its command: environment variables (including valueFrom and
 * envFrom) and volumes materialised as directories (emptyDir, Secret, ConfigMap, downward API,
 * projected service-account tokens, hostPath).
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { CoreV1Api, V1Container, V1ObjectFieldSelector, V1Pod, V1Volume } from '@kubernetes/client-node';
import { isNotFound } from '../../core/kube/errors.ts';

/** A problem the kubelet reports as CreateContainerConfigError and retries. */
export class ConfigError extends Error {}

export interface Sources {
  readonly api: CoreV1Api;
  /** kube-apiserver's address, for the in-cluster client variables. */
  readonly apiHost: string;
  readonly apiPort: string;
}

async function secretData(sources: Sources, namespace: string, name: string, optional: boolean): Promise<Record<string, string> | undefined> {
  try {
    const secret = await sources.api.readNamespacedSecret({ name, namespace });
    return Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
  } catch (error) {
    if (optional && isNotFound(error)) return undefined;
    throw new ConfigError(`secret "${name}" not found`);
  }
}

async function configMapData(sources: Sources, namespace: string, name: string, optional: boolean): Promise<Record<string, string> | undefined> {
  try {
    return (await sources.api.readNamespacedConfigMap({ name, namespace })).data ?? {};
  } catch (error) {
    if (optional && isNotFound(error)) return undefined;
    throw new ConfigError(`configmap "${name}" not found`);
  }
}

/** `metadata.name`, `metadata.labels['app']`, `spec.nodeName`, `status.podIP`, ... */
export function fieldValue(pod: V1Pod, ref: V1ObjectFieldSelector): string {
  const path = ref.fieldPath;
  const mapKey = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (mapKey !== null) return (mapKey[1] === 'labels' ? pod.metadata?.labels : pod.metadata?.annotations)?.[mapKey[2] ?? ''] ?? '';
  const values: Record<string, string | undefined> = {
    'metadata.name': pod.metadata?.name,
    'metadata.namespace': pod.metadata?.namespace,
    'metadata.uid': pod.metadata?.uid,
    'spec.nodeName': pod.spec?.nodeName,
    'spec.serviceAccountName': pod.spec?.serviceAccountName,
    'status.hostIP': '127.0.0.1',
    'status.podIP': '127.0.0.1',
  };
  if (!(path in values)) throw new ConfigError(`unsupported fieldRef ${path}`);
  return values[path] ?? '';
}

/** The container's environment as the kubelet builds it: envFrom first, then env in order. */
export async function containerEnv(pod: V1Pod, container: V1Container, sources: Sources, hostPath: string): Promise<Record<string, string>> {
  const namespace = pod.metadata?.namespace ?? 'default';
  const env: Record<string, string> = {
    PATH: hostPath,
    HOME: '/root',
    HOSTNAME: pod.metadata?.name ?? '',
    KUBERNETES_SERVICE_HOST: sources.apiHost,
    KUBERNETES_SERVICE_PORT: sources.apiPort,
    KUBERNETES_SERVICE_PORT_HTTPS: sources.apiPort,
  };
  for (const from of container.envFrom ?? []) {
    for (const [key, value] of Object.entries(await envFromData(from, sources, namespace))) env[`${from.prefix ?? ''}${key}`] = value;
  }
  for (const variable of container.env ?? []) {
    const value = await envValue(pod, variable, sources, namespace, env);
    if (value !== undefined) env[variable.name] = value;
  }
  return env;
}

async function envFromData(from: NonNullable<V1Container['envFrom']>[number], sources: Sources, namespace: string): Promise<Record<string, string>> {
  if (from.secretRef) return (await secretData(sources, namespace, from.secretRef.name ?? '', from.secretRef.optional === true)) ?? {};
  if (from.configMapRef) return (await configMapData(sources, namespace, from.configMapRef.name ?? '', from.configMapRef.optional === true)) ?? {};
  return {};
}

async function envValue(pod: V1Pod, variable: NonNullable<V1Container['env']>[number], sources: Sources, namespace: string, env: Record<string, string>): Promise<string | undefined> {
  // `$(VAR)` refers to variables defined earlier, as the kubelet expands it.
  if (variable.valueFrom === undefined) return (variable.value ?? '').replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name: string) => env[name] ?? whole);
  const { secretKeyRef, configMapKeyRef, fieldRef } = variable.valueFrom;
  if (fieldRef) return fieldValue(pod, fieldRef);
  const ref = secretKeyRef ?? configMapKeyRef;
  if (ref === undefined) throw new ConfigError(`unsupported valueFrom for ${variable.name}`);
  const optional = ref.optional === true;
  const data = secretKeyRef ? await secretData(sources, namespace, ref.name ?? '', optional) : await configMapData(sources, namespace, ref.name ?? '', optional);
  const value = data?.[ref.key];
  if (value === undefined && !optional) throw new ConfigError(`key "${ref.key}" not found in ${secretKeyRef ? 'secret' : 'configmap'} "${ref.name ?? ''}"`);
  return value;
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
function selectItems(data: Record<string, string>, items: readonly { key: string; path: string }[] | undefined): Record<string, string> {
  if (items === undefined || items.length === 0) return data;
  return Object.fromEntries(items.flatMap((item) => (data[item.key] === undefined ? [] : [[item.path, data[item.key] ?? '']])));
}

/** Writes a volume's files under `dir`; returns the directory to bind (hostPath: the host path). */
export async function materialiseVolume(pod: V1Pod, volume: V1Volume, dir: string, sources: Sources): Promise<string> {
  const namespace = pod.metadata?.namespace ?? 'default';
  if (volume.hostPath) return volume.hostPath.path;
  if (volume.emptyDir) {
    await mkdir(dir, { recursive: true });
    return dir;
  }
  if (volume.secret) {
    const data = await secretData(sources, namespace, volume.secret.secretName ?? '', volume.secret.optional === true);
    await writeFiles(dir, selectItems(data ?? {}, volume.secret.items), volume.secret.defaultMode);
    return dir;
  }
  if (volume.configMap) {
    const data = await configMapData(sources, namespace, volume.configMap.name ?? '', volume.configMap.optional === true);
    await writeFiles(dir, selectItems(data ?? {}, volume.configMap.items), volume.configMap.defaultMode);
    return dir;
  }
  if (volume.downwardAPI) {
    const files = Object.fromEntries((volume.downwardAPI.items ?? []).map((item) => [item.path, item.fieldRef ? fieldValue(pod, item.fieldRef) : '']));
    await writeFiles(dir, files, volume.downwardAPI.defaultMode);
    return dir;
  }
  if (volume.projected) {
    await writeFiles(dir, await projectedFiles(pod, volume.projected.sources ?? [], sources), volume.projected.defaultMode);
    return dir;
  }
  throw new ConfigError(`volume "${volume.name}": this node agent does not support its type`);
}

type Projection = NonNullable<NonNullable<V1Volume['projected']>['sources']>[number];

async function projectedFiles(pod: V1Pod, projections: readonly Projection[], sources: Sources): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const source of projections) Object.assign(files, await projectionFiles(pod, source, sources));
  return files;
}

async function projectionFiles(pod: V1Pod, source: Projection, sources: Sources): Promise<Record<string, string>> {
  const namespace = pod.metadata?.namespace ?? 'default';
  if (source.serviceAccountToken) return { [source.serviceAccountToken.path]: await boundToken(pod, source.serviceAccountToken, sources) };
  if (source.configMap) return selectItems((await configMapData(sources, namespace, source.configMap.name ?? '', source.configMap.optional === true)) ?? {}, source.configMap.items);
  if (source.secret) return selectItems((await secretData(sources, namespace, source.secret.name ?? '', source.secret.optional === true)) ?? {}, source.secret.items);
  return Object.fromEntries((source.downwardAPI?.items ?? []).map((item) => [item.path, item.fieldRef ? fieldValue(pod, item.fieldRef) : '']));
}

/** Like the kubelet: a token bound to this Pod, requested through the TokenRequest API. */
async function boundToken(pod: V1Pod, projection: NonNullable<Projection['serviceAccountToken']>, sources: Sources): Promise<string> {
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
