/**
 * A container's environment variables as the kubelet builds them (including valueFrom and
 * envFrom), and the reads of Secrets and ConfigMaps that volumes share.
 */
import type { CoreV1Api, V1Container, V1ObjectFieldSelector, V1Pod } from '@kubernetes/client-node';
import { isNotFound } from '../../core/kube/errors.ts';

/** A problem the kubelet reports as CreateContainerConfigError and retries. */
export class ConfigError extends Error {}

export interface Sources {
  readonly api: CoreV1Api;
  /** kube-apiserver's address, for the in-cluster client variables. */
  readonly apiHost: string;
  readonly apiPort: string;
}

export async function secretData(
  sources: Sources,
  namespace: string,
  name: string,
  optional: boolean,
): Promise<Record<string, string> | undefined> {
  try {
    const secret = await sources.api.readNamespacedSecret({ name, namespace });
    return Object.fromEntries(
      Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
    );
  } catch (error) {
    if (optional && isNotFound(error)) return undefined;
    throw new ConfigError(`secret "${name}" not found`);
  }
}

export async function configMapData(
  sources: Sources,
  namespace: string,
  name: string,
  optional: boolean,
): Promise<Record<string, string> | undefined> {
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
  if (mapKey !== null)
    return (mapKey[1] === 'labels' ? pod.metadata?.labels : pod.metadata?.annotations)?.[mapKey[2] ?? ''] ?? '';
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

/** What the runtime sets before the container's own variables: PATH of the image, HOME of its user. */
export interface BaseEnv {
  readonly path: string;
  readonly home: string;
}

/** The container's environment as the kubelet builds it: envFrom first, then env in order. */
export async function containerEnv(
  pod: V1Pod,
  container: V1Container,
  sources: Sources,
  base: BaseEnv,
): Promise<Record<string, string>> {
  const namespace = pod.metadata?.namespace ?? 'default';
  const env: Record<string, string> = {
    PATH: base.path,
    HOME: base.home,
    HOSTNAME: pod.metadata?.name ?? '',
    KUBERNETES_SERVICE_HOST: sources.apiHost,
    KUBERNETES_SERVICE_PORT: sources.apiPort,
    KUBERNETES_SERVICE_PORT_HTTPS: sources.apiPort,
  };
  for (const from of container.envFrom ?? []) {
    for (const [key, value] of Object.entries(await envFromData(from, sources, namespace)))
      env[`${from.prefix ?? ''}${key}`] = value;
  }
  for (const variable of container.env ?? []) {
    const value = await envValue(pod, variable, sources, namespace, env);
    if (value !== undefined) env[variable.name] = value;
  }
  return env;
}

/** `$(VAR)` refers to variables defined earlier, as the kubelet expands env values and subPathExpr. */
export function expandVariables(text: string, env: Readonly<Record<string, string>>): string {
  return text.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name: string) => env[name] ?? whole);
}

async function envFromData(
  from: NonNullable<V1Container['envFrom']>[number],
  sources: Sources,
  namespace: string,
): Promise<Record<string, string>> {
  if (from.secretRef)
    return (await secretData(sources, namespace, from.secretRef.name ?? '', from.secretRef.optional === true)) ?? {};
  if (from.configMapRef)
    return (
      (await configMapData(sources, namespace, from.configMapRef.name ?? '', from.configMapRef.optional === true)) ?? {}
    );
  return {};
}

async function envValue(
  pod: V1Pod,
  variable: NonNullable<V1Container['env']>[number],
  sources: Sources,
  namespace: string,
  env: Record<string, string>,
): Promise<string | undefined> {
  // `$(VAR)` refers to variables defined earlier, as the kubelet expands it.
  if (variable.valueFrom === undefined) return expandVariables(variable.value ?? '', env);
  const { secretKeyRef, configMapKeyRef, fieldRef } = variable.valueFrom;
  if (fieldRef) return fieldValue(pod, fieldRef);
  const ref = secretKeyRef ?? configMapKeyRef;
  if (ref === undefined) throw new ConfigError(`unsupported valueFrom for ${variable.name}`);
  const optional = ref.optional === true;
  const data = secretKeyRef
    ? await secretData(sources, namespace, ref.name ?? '', optional)
    : await configMapData(sources, namespace, ref.name ?? '', optional);
  const value = data?.[ref.key];
  if (value === undefined && !optional)
    throw new ConfigError(`key "${ref.key}" not found in ${secretKeyRef ? 'secret' : 'configmap'} "${ref.name ?? ''}"`);
  return value;
}
