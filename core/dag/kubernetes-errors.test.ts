import { describe, expect, it } from 'vitest';
import { formatIssue } from './issues.ts';
import { loadDag } from './load.ts';

const errorsOf = (yaml: string): string[] => loadDag(yaml, { fileName: 'pods' }).errors.map(formatIssue);
/** A DAG whose first step has this kubernetes block (YAML flow mapping). */
const step = (block: string): string => `steps:\n  - command: make\n    kubernetes: ${block}`;

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

describe("Dagu's keys that do not fit a Pod per attempt are refused with the reason", () => {
  const cases: { name: string; setting: string; want: string }[] = [
    {
      name: 'kubeconfig',
      setting: 'kubeconfig: /home/me/.kube/config',
      want: 'steps[0].with.kubeconfig: step Pods run in the cluster of the operator, with its own credentials; remove it',
    },
    {
      name: 'context',
      setting: 'context: prod',
      want: 'steps[0].with.context: step Pods run in the cluster of the operator, with its own credentials; remove it',
    },
    {
      name: 'cleanup_policy keep',
      setting: 'cleanup_policy: keep',
      want: 'steps[0].with.cleanupPolicy: only "delete" is possible: a step Pod is deleted once its logs are archived',
    },
    {
      name: 'a backoff_limit above 0',
      setting: 'backoff_limit: 2',
      want: 'steps[0].with.backoffLimit: only 0 is possible: each attempt is one Pod; use retryPolicy to run a step again',
    },
    {
      name: 'ttl_after_finished',
      setting: 'ttl_after_finished: 60',
      want: 'steps[0].with.ttlAfterFinished: finished step Pods are deleted once their logs are archived, and runs after histRetentionDays; remove it',
    },
    {
      name: 'pod_failure_policy',
      setting: 'pod_failure_policy: {rules: []}',
      want: 'steps[0].with.podFailurePolicy: a step Pod is not a Job; use retryPolicy and continueOn',
    },
  ];
  it.each(cases)('$name', ({ setting, want }) => {
    expect(errorsOf(`steps:\n  - type: k8s\n    with: {image: a, ${setting}}`)).toEqual([want]);
  });
});

describe('where the kubernetes settings meet the rest of the file', () => {
  const cases: { name: string; yaml: string; want: string[] }[] = [
    {
      name: 'the workspace in a step',
      yaml: step('{workspace: false}'),
      want: [
        'steps[0].kubernetes.workspace: the workspace belongs to the whole run; set it in the DAG-level kubernetes block',
      ],
    },
    {
      name: 'a workspace of no size',
      yaml: 'kubernetes: {workspace: {size: 0}}\nsteps: [echo]',
      want: ['kubernetes.workspace.size: must be more than 0'],
    },
    {
      name: 'a workspace access mode Kubedag does not offer',
      yaml: 'kubernetes: {workspace: {accessMode: ReadOnlyMany}}\nsteps: [echo]',
      want: ['kubernetes.workspace.accessMode: must be one of "ReadWriteOnce", "ReadWriteMany", not "ReadOnlyMany"'],
    },
    {
      name: 'a kubernetes block and kubernetes executor settings in one step',
      yaml: 'steps:\n  - type: k8s\n    with: {image: a}\n    kubernetes: {image: b}',
      want: ["steps[0].with: the step's kubernetes block says the same; use one of them"],
    },
    {
      name: 'with and config in one step',
      yaml: 'steps:\n  - type: k8s\n    with: {image: a}\n    config: {image: b}',
      want: ['steps[0].config: use either with or config (its older name), not both'],
    },
    {
      name: 'executor and type in one step',
      yaml: 'steps:\n  - command: x\n    type: k8s\n    executor: shell',
      want: ['steps[0].executor: use either executor or type (with with), not both'],
    },
    {
      name: 'a misspelt setting under with',
      yaml: 'steps:\n  - type: kubernetes\n    with: {image: a, resources: {limits: {cpu: [1]}}}',
      want: ['steps[0].with.resources.limits.cpu: must be a string or a number, not a list'],
    },
    {
      name: 'a kubernetes block on a call step',
      yaml: 'steps:\n  - call: child\n    kubernetes: {image: a}',
      want: [
        'steps[0].kubernetes: a step with call runs its DAG as a run of its own, without a Pod here; set kubernetes in the called DAG',
      ],
    },
    {
      name: 'the pull policy set by the container block too',
      yaml: 'container: {image: a, pullPolicy: always}\nkubernetes: {imagePullPolicy: Never}\nsteps: [echo]',
      want: [
        "kubernetes.imagePullPolicy: container.pullPolicy sets this for the run's container already; use one of them",
      ],
    },
    {
      name: 'the working directory set by the DAG too',
      yaml: 'workingDir: /a\nkubernetes: {workingDir: /b}\nsteps: [echo]',
      want: ['kubernetes.workingDir: workingDir sets this for every step already; use one of them'],
    },
    {
      name: "a docker step's image set twice",
      yaml: 'steps:\n  - command: x\n    executor: {type: docker, config: {image: a}}\n    kubernetes: {image: b}',
      want: ["steps[0].kubernetes.image: the docker executor's image sets this step's image already; use one of them"],
    },
    {
      name: 'a node label that workerSelector contradicts at DAG level',
      yaml: 'workerSelector: {pool: a}\nkubernetes: {nodeSelector: {pool: b}}\nsteps: [echo]',
      want: [
        'kubernetes.nodeSelector.pool: label pool is "b" in kubernetes.nodeSelector but "a" in workerSelector; no node has both, set it in one place',
      ],
    },
    {
      name: "a step's node label that the DAG's workerSelector contradicts",
      yaml: 'workerSelector: {pool: a}\nsteps:\n  - command: x\n    kubernetes: {node_selector: {pool: b}}',
      want: [
        'steps[0].kubernetes.nodeSelector.pool: label pool is "b" in kubernetes.nodeSelector but "a" in workerSelector; no node has both, set it in one place',
      ],
    },
    {
      name: "a step's workerSelector that the DAG's nodeSelector contradicts",
      yaml: 'kubernetes: {nodeSelector: {pool: a}}\nsteps:\n  - command: x\n    workerSelector: {pool: b}',
      want: [
        'steps[0].workerSelector.pool: label pool is "a" in kubernetes.nodeSelector but "b" in workerSelector; no node has both, set it in one place',
      ],
    },
    {
      name: "a step's limit below the DAG's request, at the limit",
      yaml: 'kubernetes: {resources: {requests: {memory: 1Gi}}}\nsteps:\n  - command: x\n    kubernetes: {resources: {limits: {memory: 512Mi}}}',
      want: ['steps[0].kubernetes.resources.limits.memory: 512Mi is less than the request 1Gi'],
    },
    {
      name: "a step's mount of a volume only other steps have",
      yaml: 'steps:\n  - command: x\n    kubernetes: {volumeMounts: [{name: data, mountPath: /d}]}',
      want: ['steps[0].kubernetes.volumeMounts[0].name: "data" is not a volume: the Pod declares no volumes'],
    },
  ];
  it.each(cases)('$name', ({ yaml, want }) => {
    expect(errorsOf(yaml)).toEqual(want);
  });

  it('reports a problem of the DAG-level block once, not again at each step', () => {
    const yaml =
      'kubernetes: {volumeMounts: [{name: data, mountPath: /d}]}\nsteps:\n  - command: a\n  - command: b\n    kubernetes: {image: x}';
    expect(errorsOf(yaml)).toEqual([
      'kubernetes.volumeMounts[0].name: "data" is not a volume: the Pod declares no volumes',
    ]);
  });
});

describe('variable references in the kubernetes block', () => {
  it('are refused in the workspace too, and not on top of a refused key', () => {
    const yaml =
      'kubernetes:\n  kubeconfig: ${HOME}/.kube/config\n  workspace: {storageClassName: "${CLASS}"}\nsteps: [echo]';
    expect(errorsOf(yaml)).toEqual([
      'kubernetes.kubeconfig: step Pods run in the cluster of the operator, with its own credentials; remove it',
      'kubernetes.workspace.storageClassName: variables (${...}) are not expanded in the kubernetes block: its values go into the Pod as written',
    ]);
  });
});
