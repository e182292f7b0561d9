/**
 * The nested Kubernetes objects of the `kubernetes` block as TypeBox definitions: environment,
 * resources, tolerations, affinity, security contexts, volumes and mounts. Each is the subset
 * of the Kubernetes API object that Dagu's Kubernetes executor takes, plus a few fields a
 * Kubernetes user reaches for (tolerationSeconds, matchFields, items, optional).
 * Keys are Kubernetes' camelCase; kubeObject adds Dagu's snake_case spellings.
 */
import Type, { type TRecord } from 'typebox';
import { kubeObject } from './kube-object.ts';
import { count, flag, text } from './schema-builders.ts';

/** YAML reads `cpu: 2` as a number; Kubernetes quantities are text. */
export const quantity = Type.Union([Type.String(), Type.Number()], {
  description: 'A quantity such as 500m, 1.5Gi or 2.',
});
/** Label-like values: YAML reads `gpu: true` and `tier: 2` as a boolean and a number. */
const labelText = Type.Union([Type.String(), Type.Integer(), Type.Boolean()]);
export function labelMap(description: string): TRecord<'^.*$', typeof labelText> {
  return Type.Record(Type.String(), labelText, { description });
}
const names = (description: string) => Type.Array(Type.String(), { description });

const keySelector = (kind: string) =>
  kubeObject(
    {
      name: text(`${kind} name.`),
      key: text(`Key within the ${kind}.`),
      optional: Type.Optional(flag(`Start even when the ${kind} or key is missing.`)),
    },
    `A key of a ${kind}.`,
  );

const envVarSource = kubeObject(
  {
    secretKeyRef: Type.Optional(keySelector('Secret')),
    configMapKeyRef: Type.Optional(keySelector('ConfigMap')),
    fieldRef: Type.Optional(
      kubeObject(
        {
          fieldPath: text('Pod field such as metadata.name or status.podIP.'),
          apiVersion: Type.Optional(text('Version of fieldPath (default v1).')),
        },
        'A field of the Pod.',
      ),
    ),
  },
  'Where the value comes from: exactly one of secretKeyRef, configMapKeyRef and fieldRef.',
);

export const envVar = kubeObject(
  {
    name: text('Variable name.'),
    value: Type.Optional(Type.Union([Type.String(), Type.Number(), Type.Boolean()], { description: 'Literal value.' })),
    valueFrom: Type.Optional(envVarSource),
  },
  'An environment variable of the step container: a value, or valueFrom a Secret, ConfigMap or Pod field.',
  { definition: 'kubernetesEnvVar' },
);

const envFromReference = (kind: string) =>
  kubeObject(
    { name: text(`${kind} name.`), optional: Type.Optional(flag(`Start even when the ${kind} is missing.`)) },
    `A ${kind} whose keys become variables.`,
  );

export const envFromSource = kubeObject(
  {
    secretRef: Type.Optional(envFromReference('Secret')),
    configMapRef: Type.Optional(envFromReference('ConfigMap')),
    prefix: Type.Optional(text('Prefix added to each variable name.')),
  },
  'All keys of one Secret or ConfigMap as variables: exactly one of secretRef and configMapRef.',
);

const quantities = (description: string) => Type.Record(Type.String(), quantity, { description });

export const resources = kubeObject(
  {
    requests: Type.Optional(
      quantities('Amounts the scheduler reserves, by resource name (cpu, memory, nvidia.com/gpu, ...).'),
    ),
    limits: Type.Optional(quantities('Amounts the container may not exceed, by resource name.')),
  },
  'CPU, memory and other resources of the step container.',
);

export const toleration = kubeObject(
  {
    key: Type.Optional(text('Taint key; empty with operator Exists tolerates every taint.')),
    operator: Type.Optional(
      Type.Enum(['Exists', 'Equal'], { description: 'Equal (default) compares value; Exists tolerates any value.' }),
    ),
    value: Type.Optional(text('Taint value, with operator Equal.')),
    effect: Type.Optional(
      Type.Enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute'], { description: 'Taint effect; empty tolerates all.' }),
    ),
    tolerationSeconds: Type.Optional(
      Type.Integer({ description: 'With NoExecute: how long the Pod stays bound after the taint appears.' }),
    ),
  },
  'Lets the step Pod run on nodes with a matching taint.',
);

const nodeRequirement = kubeObject(
  {
    key: text('Node label (or field) key.'),
    operator: Type.Enum(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'], {
      description: 'How values are compared.',
    }),
    values: Type.Optional(
      names('Values: one or more for In and NotIn, none for Exists and DoesNotExist, one integer for Gt and Lt.'),
    ),
  },
  'A node label requirement.',
);
const nodeTerm = kubeObject(
  {
    matchExpressions: Type.Optional(
      Type.Array(nodeRequirement, { description: 'Requirements on node labels, all of which must hold.' }),
    ),
    matchFields: Type.Optional(
      Type.Array(nodeRequirement, { description: 'Requirements on node fields, all of which must hold.' }),
    ),
  },
  'A node selector term.',
  { definition: 'kubernetesNodeSelectorTerm' },
);
const weight = Type.Integer({ minimum: 1, maximum: 100, description: 'Weight from 1 to 100.' });

const nodeAffinity = kubeObject(
  {
    requiredDuringSchedulingIgnoredDuringExecution: Type.Optional(
      kubeObject(
        { nodeSelectorTerms: Type.Array(nodeTerm, { description: 'Terms, any one of which must match.' }) },
        'Nodes the Pod must run on.',
      ),
    ),
    preferredDuringSchedulingIgnoredDuringExecution: Type.Optional(
      Type.Array(kubeObject({ weight, preference: nodeTerm }, 'A weighted node preference.'), {
        description: 'Nodes the Pod should run on.',
      }),
    ),
  },
  'Which nodes the step Pod runs on.',
);

const labelRequirement = kubeObject(
  {
    key: text('Label key.'),
    operator: Type.Enum(['In', 'NotIn', 'Exists', 'DoesNotExist'], { description: 'How values are compared.' }),
    values: Type.Optional(names('Values: one or more for In and NotIn, none for Exists and DoesNotExist.')),
  },
  'A label requirement.',
);
const labelSelector = kubeObject(
  {
    matchLabels: Type.Optional(
      Type.Record(Type.String(), Type.String(), { description: 'Labels that must be equal.' }),
    ),
    matchExpressions: Type.Optional(
      Type.Array(labelRequirement, { description: 'Requirements, all of which must hold.' }),
    ),
  },
  'A label selector.',
  { definition: 'kubernetesLabelSelector' },
);
const podAffinityTerm = kubeObject(
  {
    labelSelector: Type.Optional(labelSelector),
    namespaces: Type.Optional(names("Namespaces of the Pods to match (default: the Pod's own).")),
    namespaceSelector: Type.Optional(labelSelector),
    topologyKey: text('Node label whose value defines "the same place", such as kubernetes.io/hostname.'),
  },
  'Pods to run near (or away from).',
  { definition: 'kubernetesPodAffinityTerm' },
);
const podAffinity = (description: string) =>
  kubeObject(
    {
      requiredDuringSchedulingIgnoredDuringExecution: Type.Optional(
        Type.Array(podAffinityTerm, { description: 'Terms that must hold.' }),
      ),
      preferredDuringSchedulingIgnoredDuringExecution: Type.Optional(
        Type.Array(kubeObject({ weight, podAffinityTerm }, 'A weighted term.'), {
          description: 'Terms that should hold.',
        }),
      ),
    },
    description,
  );

export const affinity = kubeObject(
  {
    nodeAffinity: Type.Optional(nodeAffinity),
    podAffinity: Type.Optional(podAffinity('Pods the step Pod runs near.')),
    podAntiAffinity: Type.Optional(podAffinity('Pods the step Pod runs away from.')),
  },
  'Scheduling rules of the step Pod.',
  { definition: 'kubernetesAffinity' },
);

const seccompProfile = kubeObject(
  {
    type: Type.Enum(['RuntimeDefault', 'Unconfined', 'Localhost'], { description: 'Profile type.' }),
    localhostProfile: Type.Optional(text('Profile file on the node, with type Localhost only.')),
  },
  'Seccomp profile.',
);
const ids = {
  runAsUser: Type.Optional(count('User id.')),
  runAsGroup: Type.Optional(count('Group id.')),
  runAsNonRoot: Type.Optional(flag('Refuse to start as root.')),
};

export const securityContext = kubeObject(
  {
    ...ids,
    privileged: Type.Optional(flag('Run privileged.')),
    readOnlyRootFilesystem: Type.Optional(flag('Mount the root filesystem read-only.')),
    allowPrivilegeEscalation: Type.Optional(flag('Allow gaining more privileges than the parent process.')),
    capabilities: Type.Optional(
      kubeObject(
        {
          add: Type.Optional(names('Capabilities to add.')),
          drop: Type.Optional(names('Capabilities to drop, such as ALL.')),
        },
        'Linux capabilities.',
      ),
    ),
    seccompProfile: Type.Optional(seccompProfile),
  },
  'Security settings of the step container.',
  { definition: 'kubernetesSecurityContext' },
);

export const podSecurityContext = kubeObject(
  {
    ...ids,
    fsGroup: Type.Optional(count('Group that owns supported volumes.')),
    fsGroupChangePolicy: Type.Optional(
      Type.Enum(['Always', 'OnRootMismatch'], { description: 'When volume ownership is changed.' }),
    ),
    supplementalGroups: Type.Optional(
      Type.Array(count('Group id.'), { description: 'More groups of the first process.' }),
    ),
    sysctls: Type.Optional(
      Type.Array(kubeObject({ name: text('Sysctl name.'), value: text('Sysctl value.') }, 'A namespaced sysctl.'), {
        description: 'Namespaced sysctls.',
      }),
    ),
    seccompProfile: Type.Optional(seccompProfile),
  },
  'Security settings of the step Pod.',
  { definition: 'kubernetesPodSecurityContext' },
);

// No file modes: YAML 1.2 reads the customary 0400 as the decimal 400, a different mode.
const keyToPath = kubeObject({ key: text('Key.'), path: text('Relative file path.') }, 'A key projected to a file.');
/** What configMap and secret volumes share besides the name of their source. */
const projected = (kind: string) => ({
  items: Type.Optional(Type.Array(keyToPath, { description: 'Keys to project (default: all).' })),
  optional: Type.Optional(flag(`Start even when the ${kind} is missing.`)),
});

/** The volume types a Pod of Kubedag may use; any other is refused by name. */
export const VOLUME_TYPES = ['emptyDir', 'hostPath', 'configMap', 'secret', 'persistentVolumeClaim'] as const;

export const volume = kubeObject(
  {
    name: text('Volume name, referred to by volumeMounts.'),
    emptyDir: Type.Optional(
      kubeObject(
        { medium: Type.Optional(text('"" (node disk) or Memory.')), sizeLimit: Type.Optional(quantity) },
        "An empty directory for the Pod's life.",
      ),
    ),
    hostPath: Type.Optional(
      kubeObject(
        {
          path: text('Path on the node.'),
          type: Type.Optional(
            Type.Enum(
              ['', 'DirectoryOrCreate', 'Directory', 'FileOrCreate', 'File', 'Socket', 'CharDevice', 'BlockDevice'],
              { description: 'What must exist at path.' },
            ),
          ),
        },
        'A file or directory of the node.',
      ),
    ),
    configMap: Type.Optional(
      kubeObject({ name: text('ConfigMap name.'), ...projected('ConfigMap') }, 'A ConfigMap as files.'),
    ),
    secret: Type.Optional(
      kubeObject({ secretName: text('Secret name.'), ...projected('Secret') }, 'A Secret as files.'),
    ),
    persistentVolumeClaim: Type.Optional(
      kubeObject(
        { claimName: text('PersistentVolumeClaim name.'), readOnly: Type.Optional(flag('Mount read-only.')) },
        'A PersistentVolumeClaim.',
      ),
    ),
  },
  `A volume of the step Pod: exactly one of ${VOLUME_TYPES.join(', ')}.`,
  { open: true, definition: 'kubernetesVolume' },
);

export const volumeMount = kubeObject(
  {
    name: text('Name of a volume of the block.'),
    mountPath: text('Absolute path in the container.'),
    subPath: Type.Optional(text('Path within the volume (default: its root).')),
    readOnly: Type.Optional(flag('Mount read-only.')),
  },
  'Where a volume appears in the step container.',
);

/** The parts stored once in the published JSON Schema (each carries its definition name). */
export const KUBERNETES_DEFINITIONS = [
  envVar,
  nodeTerm,
  labelSelector,
  podAffinityTerm,
  affinity,
  securityContext,
  podSecurityContext,
  volume,
];
