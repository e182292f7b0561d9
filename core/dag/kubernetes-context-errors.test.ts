import { describe, expect, it } from 'vitest';
import { errorsIn, kubernetesStep as step } from '../../test/dag-errors.ts';

const errorsOf = errorsIn('pods');

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
      name: 'a workerSelector on a call step (1.x)',
      yaml: 'steps:\n  - call: child\n    workerSelector: {pool: gpu}',
      want: [
        'steps[0].workerSelector: a step with call runs its DAG as a run of its own, without a Pod here; set the selector in the called DAG',
      ],
    },
    {
      name: 'a worker_selector on a dag.run step (2.x)',
      yaml: 'steps:\n  - action: dag.run\n    with: {dag: child}\n    worker_selector: {pool: gpu}',
      want: [
        'steps[0].worker_selector: a step with call runs its DAG as a run of its own, without a Pod here; set the selector in the called DAG',
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
