import { describe, expect, it } from 'vitest';
import { errorsIn, kubernetesStep as step } from '../../test/dag-errors.ts';

const errorsOf = errorsIn('pods');

describe('the kubernetes block is refused with located messages', () => {
  const cases: { name: string; yaml: string; want: string[] }[] = [
    // Shape
    {
      name: 'an unknown snake_case key, suggesting the nearest spelling',
      yaml: step('{image_pul_policy: Always}'),
      want: ['steps[0].kubernetes.image_pul_policy: unknown key; did you mean "image_pull_policy"?'],
    },
    {
      name: 'an unknown nested key, suggesting the nearest',
      yaml: step('{securityContext: {runAsUsr: 1}}'),
      want: ['steps[0].kubernetes.securityContext.runAsUsr: unknown key; did you mean "runAsUser"?'],
    },
    {
      name: 'one key in both spellings',
      yaml: step('{image_pull_policy: Always, imagePullPolicy: Never}'),
      want: [
        'steps[0].kubernetes.imagePullPolicy: duplicate key: "image_pull_policy" and "imagePullPolicy" are the same key',
      ],
    },
    {
      name: 'a quantity of the wrong type',
      yaml: step('{resources: {limits: {memory: [1]}}}'),
      want: ['steps[0].kubernetes.resources.limits.memory: must be a string or a number, not a list'],
    },
    {
      name: 'a negative user id',
      yaml: step('{security_context: {run_as_user: -1}}'),
      want: ['steps[0].kubernetes.securityContext.runAsUser: must be at least 0'],
    },
    {
      name: 'a weight over 100',
      yaml: step(
        '{affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 101, preference: {}}]}}}',
      ),
      want: [
        'steps[0].kubernetes.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: must be at most 100',
      ],
    },
    {
      name: 'a mount without its path',
      yaml: step('{volumes: [{name: v, emptyDir: {}}], volumeMounts: [{name: v}]}'),
      want: ['steps[0].kubernetes.volumeMounts[0]: missing required key "mountPath"'],
    },
    // Images and names
    {
      name: "the container block's pull policy word",
      yaml: step('{imagePullPolicy: missing}'),
      want: [
        'steps[0].kubernetes.imagePullPolicy: must be Always, IfNotPresent or Never, not "missing"; "missing" is the container block\'s word, Kubernetes says IfNotPresent',
      ],
    },
    {
      name: "Dagu's fallback pull policy, which Kubernetes has no equivalent of",
      yaml: step('{imagePullPolicy: fallback}'),
      want: [
        'steps[0].kubernetes.imagePullPolicy: must be Always, IfNotPresent or Never, not "fallback"; Kubernetes has no "pull, else use a local image" policy',
      ],
    },
    { name: 'an empty image', yaml: step('{image: " "}'), want: ['steps[0].kubernetes.image: is empty'] },
    {
      name: 'a service account name Kubernetes refuses',
      yaml: step('{serviceAccountName: Build_Bot}'),
      want: [
        'steps[0].kubernetes.serviceAccountName: "Build_Bot" is not a valid name: lower-case letters, digits, "-" and ".", starting and ending with a letter or digit, at most 253 characters',
      ],
    },
    {
      name: 'a namespace that is no namespace name',
      yaml: step('{namespace: team.a}'),
      want: [
        'steps[0].kubernetes.namespace: "team.a" is not a valid name: lower-case letters, digits and "-", starting and ending with a letter or digit, at most 63 characters',
      ],
    },
    // Resources
    {
      name: 'a memory amount that is no quantity',
      yaml: 'steps:\n  - echo a\n  - echo b\n  - command: make\n    kubernetes: {resources: {limits: {memory: 2GB}}}',
      want: ['steps[2].kubernetes.resources.limits.memory: "2GB" is not a quantity such as 500m, 1.5Gi, 2 or 1e3'],
    },
    {
      name: 'a negative request',
      yaml: step('{resources: {requests: {cpu: -1}}}'),
      want: ['steps[0].kubernetes.resources.requests.cpu: must not be negative'],
    },
    {
      name: 'a request above its limit',
      yaml: step('{resources: {requests: {memory: 2Gi}, limits: {memory: 1Gi}}}'),
      want: ['steps[0].kubernetes.resources.requests.memory: 2Gi is more than the limit 1Gi'],
    },
    {
      name: 'a resource name without a domain',
      yaml: step('{resources: {limits: {gpu: 1}}}'),
      want: [
        'steps[0].kubernetes.resources.limits.gpu: "gpu" is not a container resource: cpu, memory, ephemeral-storage, hugepages-<size>, or an extended resource with a domain such as nvidia.com/gpu',
      ],
    },
    {
      name: 'part of a GPU',
      yaml: step('{resources: {limits: {nvidia.com/gpu: 0.5}}}'),
      want: [
        'steps[0].kubernetes.resources.limits["nvidia.com/gpu"]: must be a whole number: nvidia.com/gpu is counted in units',
      ],
    },
    {
      name: 'a GPU request without a limit',
      yaml: step('{resources: {requests: {nvidia.com/gpu: 1}}}'),
      want: [
        'steps[0].kubernetes.resources.requests["nvidia.com/gpu"]: nvidia.com/gpu cannot be overcommitted: set limits.nvidia.com/gpu to the same amount',
      ],
    },
    {
      name: 'a GPU request below its limit',
      yaml: step('{resources: {requests: {nvidia.com/gpu: 1}, limits: {nvidia.com/gpu: 2}}}'),
      want: [
        'steps[0].kubernetes.resources.requests["nvidia.com/gpu"]: nvidia.com/gpu cannot be overcommitted: the request must equal the limit 2',
      ],
    },
    // Environment
    {
      name: 'a variable with both value and valueFrom',
      yaml: step('{env: [{name: A, value: x, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]}'),
      want: ['steps[0].kubernetes.env[0]: set value or valueFrom, not both'],
    },
    {
      name: 'a variable from two sources',
      yaml: step(
        '{env: [{name: A, valueFrom: {fieldRef: {fieldPath: metadata.name}, secretKeyRef: {name: s, key: k}}}]}',
      ),
      want: ['steps[0].kubernetes.env[0].valueFrom: needs exactly one of secretKeyRef, configMapKeyRef and fieldRef'],
    },
    {
      name: 'a Pod field env cannot read',
      yaml: step('{env: [{name: A, value_from: {field_ref: {field_path: spec.containers}}}]}'),
      want: [
        `steps[0].kubernetes.env[0].valueFrom.fieldRef.fieldPath: "spec.containers" is not a Pod field an environment variable can read (metadata.name, metadata.namespace, metadata.uid, metadata.labels['<key>'], metadata.annotations['<key>'], spec.nodeName, spec.serviceAccountName, status.hostIP, status.hostIPs, status.podIP, status.podIPs)`,
      ],
    },
    {
      name: 'a variable name with "="',
      yaml: step('{env: [{name: "A=B", value: x}]}'),
      want: [
        'steps[0].kubernetes.env[0].name: "A=B" is not a valid variable name: printable characters without "=", not starting with a space',
      ],
    },
    {
      name: 'an envFrom entry without a source',
      yaml: step('{envFrom: [{prefix: X_}]}'),
      want: ['steps[0].kubernetes.envFrom[0]: needs exactly one of secretRef and configMapRef'],
    },
    // Labels and annotations
    {
      name: 'a label key Kubernetes refuses',
      yaml: step('{labels: {"-team": ml}}'),
      want: [
        'steps[0].kubernetes.labels["-team"]: "-team" is not a valid key: letters, digits, "-", "_" and ".", starting and ending with a letter or digit, at most 63 characters (after an optional prefix/)',
      ],
    },
    {
      name: 'a label value Kubernetes refuses',
      yaml: step('{labels: {team: "machine learning"}}'),
      want: [
        'steps[0].kubernetes.labels.team: "machine learning" is not a valid label value: letters, digits, "-", "_" and ".", starting and ending with a letter or digit, at most 63 characters',
      ],
    },
    {
      name: 'an annotation under kubedag.io/',
      yaml: step('{annotations: {kubedag.io/step-name: x}}'),
      want: [
        'steps[0].kubernetes.annotations["kubedag.io/step-name"]: keys under kubedag.io/ are set by Kubedag itself',
      ],
    },
    // Placement
    {
      name: 'a toleration of every key that compares a value',
      yaml: step('{tolerations: [{operator: Equal, value: x}]}'),
      want: [
        'steps[0].kubernetes.tolerations[0].operator: must be Exists when key is empty (that tolerates every taint)',
      ],
    },
    {
      name: 'an Exists toleration with a value',
      yaml: step('{tolerations: [{key: k, operator: Exists, value: x}]}'),
      want: ['steps[0].kubernetes.tolerations[0].value: must be empty with operator Exists'],
    },
    {
      name: 'tolerationSeconds without NoExecute',
      yaml: step('{tolerations: [{key: k, effect: NoSchedule, toleration_seconds: 60}]}'),
      want: ['steps[0].kubernetes.tolerations[0].tolerationSeconds: applies to effect NoExecute only'],
    },
    {
      name: 'an In requirement without values',
      yaml: step(
        '{affinity: {node_affinity: {required_during_scheduling_ignored_during_execution: {node_selector_terms: [{match_expressions: [{key: zone, operator: In}]}]}}}}',
      ),
      want: [
        'steps[0].kubernetes.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: needs at least one value with operator In',
      ],
    },
    {
      name: 'a Gt requirement on a word',
      yaml: step(
        '{affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: cores, operator: Gt, values: [many]}]}]}}}}',
      ),
      want: [
        'steps[0].kubernetes.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: needs exactly one integer with operator Gt',
      ],
    },
    {
      name: 'a pod affinity term without a topology key',
      yaml: step('{affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: ""}]}}}'),
      want: [
        'steps[0].kubernetes.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: is empty',
      ],
    },
    {
      name: 'a Localhost seccomp profile without its file',
      yaml: step('{podSecurityContext: {seccompProfile: {type: Localhost}}}'),
      want: [
        'steps[0].kubernetes.podSecurityContext.seccompProfile.localhostProfile: is required when type is Localhost',
      ],
    },
    // Volumes
    {
      name: 'an nfs volume, by name',
      yaml: step('{volumes: [{name: v, nfs: {server: s, path: /}}]}'),
      want: [
        'steps[0].kubernetes.volumes[0].nfs: nfs volumes are not supported; a step Pod may use emptyDir, hostPath, configMap, secret and persistentVolumeClaim volumes',
      ],
    },
    {
      name: 'a misspelt volume type',
      yaml: step('{volumes: [{name: v, emptyDr: {}}]}'),
      want: ['steps[0].kubernetes.volumes[0].emptyDr: unknown key; did you mean "emptyDir"?'],
    },
    {
      name: 'a volume with two sources',
      yaml: step('{volumes: [{name: v, emptyDir: {}, hostPath: {path: /tmp}}]}'),
      want: [
        'steps[0].kubernetes.volumes[0]: needs exactly one source: emptyDir, hostPath, configMap, secret and persistentVolumeClaim',
      ],
    },
    {
      name: 'two volumes of one name',
      yaml: step('{volumes: [{name: v, emptyDir: {}}, {name: v, emptyDir: {}}]}'),
      want: ['steps[0].kubernetes.volumes[1].name: "v" is also the name of steps[0].kubernetes.volumes[0]'],
    },
    {
      name: 'a volume name Kubedag keeps for itself',
      yaml: step('{volumes: [{name: kubedag-workspace, emptyDir: {}}]}'),
      want: [
        'steps[0].kubernetes.volumes[0].name: names starting with "kubedag-" are kept for the volumes Kubedag adds',
      ],
    },
    {
      name: 'a mount of no volume',
      yaml: step('{volumes: [{name: data, emptyDir: {}}], volume_mounts: [{name: dat, mount_path: /data}]}'),
      want: ['steps[0].kubernetes.volumeMounts[0].name: "dat" is not a volume: the Pod\'s volumes are data'],
    },
    {
      name: 'two mounts at one path',
      yaml: step(
        '{volumes: [{name: v, emptyDir: {}}], volumeMounts: [{name: v, mountPath: /d}, {name: v, mountPath: /d}]}',
      ),
      want: [
        'steps[0].kubernetes.volumeMounts[1].mountPath: "/d" is also the mountPath of steps[0].kubernetes.volumeMounts[0]',
      ],
    },
    {
      name: 'a sub-path leaving the volume',
      yaml: step('{volumes: [{name: v, emptyDir: {}}], volumeMounts: [{name: v, mountPath: /d, subPath: ../etc}]}'),
      want: ['steps[0].kubernetes.volumeMounts[0].subPath: "../etc" must not contain ".."'],
    },
    // Values that go into the Pod as written
    {
      name: 'a variable reference, which nothing would expand',
      yaml: step('{image: "app:${TAG}"}'),
      want: [
        'steps[0].kubernetes.image: variables (${...}) are not expanded in the kubernetes block: its values go into the Pod as written',
      ],
    },
  ];
  it.each(cases)('$name', ({ yaml, want }) => {
    expect(errorsOf(yaml)).toEqual(want);
  });
});
