/**
 * What a DAG says about the Pods its steps run in: the `kubernetes` block in canonical form.
 * Every key has the Kubernetes API's camelCase spelling and JSON shape, so the operator copies
 * values into a V1Pod as they are. Values are literal: nothing here is expanded per run.
 */
import type {
  V1Affinity,
  V1EnvFromSource,
  V1EnvVar,
  V1PodSecurityContext,
  V1SecurityContext,
  V1Toleration,
  V1Volume,
  V1VolumeMount,
} from '@kubernetes/client-node';

/** An environment variable of the step container: `{name, value}` or `{name, valueFrom}`. */
export type KubeEnvVar = Readonly<V1EnvVar>;

/** A mapping from resource name (`cpu`, `memory`, `nvidia.com/gpu`) to a quantity as text. */
export type ResourceList = Readonly<Record<string, string>>;

export interface KubeResources {
  readonly requests?: ResourceList;
  readonly limits?: ResourceList;
}

export const IMAGE_PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'] as const;
export type ImagePullPolicy = (typeof IMAGE_PULL_POLICIES)[number];

export const WORKSPACE_ACCESS_MODES = ['ReadWriteOnce', 'ReadWriteMany'] as const;
export type WorkspaceAccessMode = (typeof WORKSPACE_ACCESS_MODES)[number];

/** The run's shared volume; only the DAG-level block has it. */
export interface WorkspaceSettings {
  /** `workspace: false` (or `enabled: false`) opts out: steps share no files. */
  readonly enabled: boolean;
  readonly storageClassName?: string;
  /** A quantity such as `10Gi`. */
  readonly size?: string;
  readonly accessMode?: WorkspaceAccessMode;
}

export interface KubernetesSettings {
  readonly image?: string;
  readonly imagePullPolicy?: ImagePullPolicy;
  /** Secret names, as `imagePullSecrets: [{name}]` wants them one by one. */
  readonly imagePullSecrets?: readonly string[];
  readonly workingDir?: string;
  readonly env?: readonly KubeEnvVar[];
  readonly envFrom?: readonly Readonly<V1EnvFromSource>[];
  readonly resources?: KubeResources;
  readonly serviceAccountName?: string;
  readonly nodeSelector?: Readonly<Record<string, string>>;
  readonly tolerations?: readonly Readonly<V1Toleration>[];
  readonly affinity?: Readonly<V1Affinity>;
  /** Container-level. */
  readonly securityContext?: Readonly<V1SecurityContext>;
  /** Pod-level. */
  readonly podSecurityContext?: Readonly<V1PodSecurityContext>;
  readonly priorityClassName?: string;
  /** Set on the step Pod; keys under kubedag.io/ are Kubedag's own and refused. */
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  /** emptyDir, hostPath, configMap, secret and persistentVolumeClaim volumes only. */
  readonly volumes?: readonly Readonly<V1Volume>[];
  readonly volumeMounts?: readonly Readonly<V1VolumeMount>[];
  readonly terminationGracePeriodSeconds?: number;
  /** Per Pod, so per attempt; absent (never 0) when there is no deadline. */
  readonly activeDeadlineSeconds?: number;
  /**
   * The namespace a Dagu file names for its Pods. Step Pods always run in the DAGRun's own
   * namespace; the operator refuses a run whose namespace differs from this one.
   */
  readonly namespace?: string;
}

/** The DAG-level block: defaults for every step Pod, and the run's workspace. */
export type DagKubernetesSettings = KubernetesSettings & { readonly workspace?: WorkspaceSettings };
