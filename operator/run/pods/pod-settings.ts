/**
 * What a step Pod gets beyond running the step: the DAG's `kubernetes` settings (already
 * merged with its defaults by core/dag), the run's workspace, the security defaults and the
 * run's image pull Secret. Laid over the Pod step-pod.ts builds; Kubedag's own labels, annotations,
 * command and variables are never overridden. Pure.
 */
import type { V1Container, V1EnvVar, V1Pod, V1PodSpec, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import type { KubernetesSettings } from '../../../core/dag/index.ts';
import type { StepDefaults } from '../../config.ts';
import { securityContexts, type RunAs } from './security.ts';
import { WORKSPACE_VOLUME, type Workspace } from './workspace.ts';

export interface PodSettingsRequest {
  readonly settings: KubernetesSettings | undefined;
  readonly defaults: Pick<StepDefaults, 'security' | 'user'>;
  readonly workspace: Workspace | undefined;
  /** The run's dockerconfigjson Secret, when the DAG has `registryAuths`. */
  readonly registrySecret: string | undefined;
  /** The ServiceAccount a step runs as when its DAG names none (a step that execs); none: no token. */
  readonly serviceAccount?: string;
  /** The user the Pod runs as over the defaults (the run's container Pod: `container.user`). */
  readonly runAs?: RunAs;
}

const defined = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
const nonEmpty = <T>(list: readonly T[]): T[] | undefined => (list.length === 0 ? undefined : [...list]);
const nonEmptyMap = (map: Readonly<Record<string, string>>): Record<string, string> | undefined =>
  Object.keys(map).length === 0 ? undefined : { ...map };

/**
 * The settings' variables come first, so that everything Kubedag sets (DAG env, params,
 * outputs, built-ins, the step's env, secrets) wins on a name they share.
 */
function withSettingsEnv(env: readonly V1EnvVar[], settings: KubernetesSettings | undefined): V1EnvVar[] {
  const own = settings?.env ?? [];
  const later = new Set(env.map((v) => v.name));
  return [...own.filter((v) => !later.has(v.name)), ...env];
}

function volumesOf(request: PodSettingsRequest): { volumes: V1Volume[]; mounts: V1VolumeMount[] } {
  const { settings, workspace } = request;
  const volumes: V1Volume[] = [...(settings?.volumes ?? [])];
  const mounts: V1VolumeMount[] = [...(settings?.volumeMounts ?? [])];
  if (workspace !== undefined) {
    volumes.push({ name: WORKSPACE_VOLUME, persistentVolumeClaim: { claimName: workspace.claimName } });
    mounts.push({ name: WORKSPACE_VOLUME, mountPath: workspace.mountPath });
  }
  return { volumes, mounts };
}

function container(
  base: V1Container,
  request: PodSettingsRequest,
  mounts: readonly V1VolumeMount[],
  securityContext: V1Container['securityContext'],
): V1Container {
  const { settings } = request;
  return defined({
    ...base,
    imagePullPolicy: settings?.imagePullPolicy ?? base.imagePullPolicy,
    env: withSettingsEnv(base.env ?? [], settings),
    envFrom: settings?.envFrom === undefined ? undefined : ([...settings.envFrom] as V1Container['envFrom']),
    resources: settings?.resources === undefined ? undefined : { ...settings.resources },
    // A base Pod's own mounts stay (the run's container Pod has the DAG container's volumes).
    volumeMounts: nonEmpty([...(base.volumeMounts ?? []), ...mounts]),
    securityContext,
  });
}

function scheduling(spec: V1PodSpec, settings: KubernetesSettings | undefined): Partial<V1PodSpec> {
  return {
    // The DAG's and the step's `workerSelector` (already on the Pod) win over `nodeSelector`.
    nodeSelector: nonEmptyMap({ ...settings?.nodeSelector, ...spec.nodeSelector }),
    tolerations:
      settings?.tolerations === undefined ? undefined : ([...settings.tolerations] as V1PodSpec['tolerations']),
    affinity: settings?.affinity,
    priorityClassName: settings?.priorityClassName,
  };
}

export function withPodSettings(pod: V1Pod, request: PodSettingsRequest): V1Pod {
  const { settings } = request;
  const spec = pod.spec as V1PodSpec;
  const security = securityContexts(request.defaults, request.runAs, settings);
  const { volumes, mounts } = volumesOf(request);
  const pullSecrets = [
    ...(settings?.imagePullSecrets ?? []),
    ...(request.registrySecret === undefined ? [] : [request.registrySecret]),
  ];
  const serviceAccount = settings?.serviceAccountName ?? request.serviceAccount;
  return {
    ...pod,
    metadata: {
      ...pod.metadata,
      labels: { ...settings?.labels, ...pod.metadata?.labels },
      annotations: { ...settings?.annotations, ...pod.metadata?.annotations },
    },
    spec: defined({
      ...spec,
      // No API token in a step unless its DAG names the service account it should act as, or
      // the step execs into a container and runs as the run's exec ServiceAccount.
      automountServiceAccountToken: serviceAccount === undefined ? false : undefined,
      serviceAccountName: serviceAccount,
      ...scheduling(spec, settings),
      terminationGracePeriodSeconds: settings?.terminationGracePeriodSeconds ?? spec.terminationGracePeriodSeconds,
      activeDeadlineSeconds: settings?.activeDeadlineSeconds,
      imagePullSecrets: nonEmpty([...new Set(pullSecrets)].map((name) => ({ name }))),
      securityContext: security.pod,
      volumes: nonEmpty([...(spec.volumes ?? []), ...volumes]),
      containers: spec.containers.map((c) => container(c, request, mounts, security.container)),
    }),
  };
}
