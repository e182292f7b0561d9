/**
 * The `kubernetes` block as TypeBox definitions: what the DAG level (defaults for every step
 * Pod, and the run's workspace) and a step (its own Pod) may say. The same keys are also the
 * settings of Dagu 2.x's Kubernetes executor (`type: kubernetes` with `with:`), so a Dagu file
 * loads as written; Dagu's keys that do not fit a Pod per attempt are described here and
 * refused (or accepted with their one meaningful value) by kubernetes.ts.
 */
import Type, { type Static } from 'typebox';
import { kubeObject } from './kube-object.ts';
import {
  affinity,
  envFromSource,
  envVar,
  labelMap,
  podSecurityContext,
  quantity,
  resources,
  securityContext,
  toleration,
  volume,
  volumeMount,
} from './kubernetes-pod-schema.ts';
import { count, flag, text } from './schema-builders.ts';

const refused = (why: string): ReturnType<typeof Type.Unknown> => Type.Unknown({ description: `Refused: ${why}` });

const settings = {
  image: Type.Optional(text('Image of the step container.')),
  imagePullPolicy: Type.Optional(text('Always, IfNotPresent or Never (any case).')),
  imagePullSecrets: Type.Optional(
    Type.Array(Type.Union([Type.String(), kubeObject({ name: text('Secret name.') }, 'A Secret reference.')]), {
      description: 'Secrets with registry credentials: names, or {name} references.',
    }),
  ),
  workingDir: Type.Optional(text('Working directory in the step container.')),
  env: Type.Optional(
    Type.Array(envVar, {
      description: 'Variables of the step container, set as Kubernetes sets them (no ${...} expansion).',
    }),
  ),
  envFrom: Type.Optional(
    Type.Array(envFromSource, { description: 'Secrets and ConfigMaps whose keys become variables.' }),
  ),
  resources: Type.Optional(resources),
  serviceAccountName: Type.Optional(text('ServiceAccount the step Pod runs as (also service_account).')),
  nodeSelector: Type.Optional(
    labelMap('Labels a node must carry; merged with workerSelector, which may not contradict it.'),
  ),
  tolerations: Type.Optional(Type.Array(toleration, { description: 'Taints the step Pod tolerates.' })),
  affinity: Type.Optional(affinity),
  securityContext: Type.Optional(securityContext),
  podSecurityContext: Type.Optional(podSecurityContext),
  priorityClassName: Type.Optional(text('PriorityClass of the step Pod.')),
  labels: Type.Optional(labelMap('Labels of the step Pod (keys under kubedag.io/ are reserved).')),
  annotations: Type.Optional(labelMap('Annotations of the step Pod (keys under kubedag.io/ are reserved).')),
  volumes: Type.Optional(Type.Array(volume, { description: 'Volumes of the step Pod.' })),
  volumeMounts: Type.Optional(Type.Array(volumeMount, { description: 'Where volumes appear in the step container.' })),
  terminationGracePeriodSeconds: Type.Optional(
    count('Seconds between the stop signal and the kill; replaces maxCleanUpTimeSec for these Pods.'),
  ),
  activeDeadlineSeconds: Type.Optional(
    count("Seconds one attempt's Pod may run before Kubernetes stops it (0: no deadline); also active_deadline."),
  ),
  namespace: Type.Optional(
    text("Dagu's namespace for the Pods: step Pods run in the DAGRun's namespace, and a run elsewhere is refused."),
  ),
  kubeconfig: Type.Optional(refused('step Pods run in the cluster of the operator, with its credentials.')),
  context: Type.Optional(refused('step Pods run in the cluster of the operator, with its credentials.')),
  cleanupPolicy: Type.Optional(
    text('Only delete, what Kubedag does: a step Pod is deleted once its logs are archived.'),
  ),
  backoffLimit: Type.Optional(
    Type.Integer({ description: 'Only 0, what Kubedag does: one Pod per attempt; retries come from retryPolicy.' }),
  ),
  ttlAfterFinished: Type.Optional(refused('finished step Pods go with their logs, and runs with histRetentionDays.')),
  podFailurePolicy: Type.Optional(refused('a step Pod is not a Job; use retryPolicy and continueOn.')),
};

/** Dagu's names of keys that Kubernetes spells otherwise. */
const aliases = {
  service_account: 'serviceAccountName',
  serviceAccount: 'serviceAccountName',
  active_deadline: 'activeDeadlineSeconds',
  activeDeadline: 'activeDeadlineSeconds',
};

export const workspaceSchema = Type.Union(
  [
    Type.Boolean(),
    kubeObject(
      {
        enabled: Type.Optional(flag('false: steps share no files (default true).')),
        storageClassName: Type.Optional(text("StorageClass of the workspace volume (default: the cluster's).")),
        size: Type.Optional(quantity),
        accessMode: Type.Optional(
          Type.Enum(['ReadWriteOnce', 'ReadWriteMany'], {
            description: 'ReadWriteMany lets steps on different nodes share it.',
          }),
        ),
      },
      'The workspace volume.',
      { aliases: { storage_class: 'storageClassName', storageClass: 'storageClassName' } },
    ),
  ],
  { description: 'The volume the steps of a run share: false opts out, a mapping sets it up.' },
);

export const dagKubernetesSchema = kubeObject(
  { ...settings, workspace: Type.Optional(workspaceSchema) },
  "Pod settings of every step (and handler), which a step's own kubernetes settings override key by key; and the run's workspace.",
  { aliases },
);

export const stepKubernetesSchema = kubeObject(
  {
    ...settings,
    workspace: Type.Optional(refused('the workspace belongs to the run; set it in the DAG-level kubernetes block.')),
  },
  'Pod settings of this step, merged over the DAG-level kubernetes block.',
  { aliases },
);

/** The block as written, keys made canonical by the structure check. */
export type KubernetesFile = Static<typeof stepKubernetesSchema>;
export type DagKubernetesFile = Static<typeof dagKubernetesSchema>;
