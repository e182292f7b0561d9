import { describe, expect, it } from 'vitest';
import { formatIssue } from './issues.ts';
import { loadDag } from './load.ts';
import type { Dag, Step } from './model.ts';

function load(yaml: string): Dag {
  const result = loadDag(yaml, { fileName: 'pods' });
  expect(result.errors.map(formatIssue)).toEqual([]);
  return result.dag;
}
const firstStep = (yaml: string): Step => load(yaml).steps[0] as Step;

describe("a step's kubernetes settings, in every spelling the format accepts", () => {
  const cases: { name: string; yaml: string; want: Pick<Step, 'executor' | 'kubernetes'> }[] = [
    {
      name: 'a step block in camelCase is taken as written',
      yaml: 'steps:\n  - command: make\n    kubernetes: {image: golang:1.24, imagePullPolicy: Always, workingDir: /src}',
      want: {
        executor: { type: 'shell', config: {} },
        kubernetes: { image: 'golang:1.24', imagePullPolicy: 'Always', workingDir: '/src' },
      },
    },
    {
      name: 'snake_case keys become camelCase, nested ones too',
      yaml: 'steps:\n  - command: make\n    kubernetes:\n      image_pull_policy: Never\n      security_context: {run_as_user: 1000, seccomp_profile: {type: Localhost, localhost_profile: p.json}}',
      want: {
        executor: { type: 'shell', config: {} },
        kubernetes: {
          imagePullPolicy: 'Never',
          securityContext: { runAsUser: 1000, seccompProfile: { type: 'Localhost', localhostProfile: 'p.json' } },
        },
      },
    },
    {
      name: 'keys match without regard to case, as every key of the format does',
      yaml: 'steps:\n  - command: make\n    kubernetes: {Image_Pull_Policy: Never, NODESELECTOR: {zone: a}}',
      want: {
        executor: { type: 'shell', config: {} },
        kubernetes: { imagePullPolicy: 'Never', nodeSelector: { zone: 'a' } },
      },
    },
    {
      name: "Dagu's service_account and active_deadline are serviceAccountName and activeDeadlineSeconds",
      yaml: 'steps:\n  - command: make\n    kubernetes: {service_account: builder, active_deadline: 600}',
      want: {
        executor: { type: 'shell', config: {} },
        kubernetes: { serviceAccountName: 'builder', activeDeadlineSeconds: 600 },
      },
    },
    {
      name: 'an active deadline of 0 means none',
      yaml: 'steps:\n  - command: make\n    kubernetes: {activeDeadlineSeconds: 0, image: a}',
      want: { executor: { type: 'shell', config: {} }, kubernetes: { image: 'a' } },
    },
    {
      name: "a pull policy in any case gets Kubernetes' spelling",
      yaml: 'steps:\n  - command: make\n    kubernetes: {imagePullPolicy: ifnotpresent}',
      want: { executor: { type: 'shell', config: {} }, kubernetes: { imagePullPolicy: 'IfNotPresent' } },
    },
    {
      name: 'image pull secrets may be names or name references',
      yaml: 'steps:\n  - command: make\n    kubernetes: {imagePullSecrets: [a, {name: b}]}',
      want: { executor: { type: 'shell', config: {} }, kubernetes: { imagePullSecrets: ['a', 'b'] } },
    },
    {
      name: 'YAML numbers and booleans become the text Kubernetes wants',
      yaml: 'steps:\n  - command: make\n    kubernetes:\n      resources: {requests: {cpu: 0.5, nvidia.com/gpu: 1}, limits: {nvidia.com/gpu: 1}}\n      nodeSelector: {gpu: true, tier: 2}\n      env: [{name: RATE, value: 0.25}]',
      want: {
        executor: { type: 'shell', config: {} },
        kubernetes: {
          resources: { requests: { cpu: '0.5', 'nvidia.com/gpu': '1' }, limits: { 'nvidia.com/gpu': '1' } },
          nodeSelector: { gpu: 'true', tier: '2' },
          env: [{ name: 'RATE', value: '0.25' }],
        },
      },
    },
    {
      name: 'type: kubernetes with with: is a kubernetes step whose settings become its Pod settings',
      yaml: 'steps:\n  - command: echo hi\n    type: kubernetes\n    with: {image: python:3.11, namespace: default, env: [{name: A, value_from: {secret_key_ref: {name: s, key: k}}}]}',
      want: {
        executor: { type: 'kubernetes', config: {} },
        kubernetes: {
          image: 'python:3.11',
          namespace: 'default',
          env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
        },
      },
    },
    {
      name: 'type: k8s with config: is the same, as older Dagu 2.x releases write it',
      yaml: 'steps:\n  - command: echo hi\n    type: k8s\n    config: {image: alpine}',
      want: { executor: { type: 'kubernetes', config: {} }, kubernetes: { image: 'alpine' } },
    },
    {
      name: 'executor: {type: kubernetes, config} is the same, as Dagu 1.x writes it',
      yaml: 'steps:\n  - command: echo hi\n    executor: {type: kubernetes, config: {image: alpine, working_dir: /w}}',
      want: { executor: { type: 'kubernetes', config: {} }, kubernetes: { image: 'alpine', workingDir: '/w' } },
    },
    {
      name: 'executor: k8s with a kubernetes block takes the block',
      yaml: 'steps:\n  - command: echo hi\n    executor: k8s\n    kubernetes: {image: alpine}',
      want: { executor: { type: 'kubernetes', config: {} }, kubernetes: { image: 'alpine' } },
    },
    {
      name: 'a kubernetes step may leave the command to the image, as in Dagu',
      yaml: 'steps:\n  - type: kubernetes\n    with: {image: registry.example.com/job:1}',
      want: { executor: { type: 'kubernetes', config: {} }, kubernetes: { image: 'registry.example.com/job:1' } },
    },
    {
      name: 'type: docker with with: is the docker executor with its config, unchanged',
      yaml: 'steps:\n  - command: echo hi\n    type: docker\n    with: {image: alpine}',
      want: { executor: { type: 'docker', config: { image: 'alpine' } } },
    },
    {
      name: "Dagu's cleanup_policy delete and backoff_limit 0 are what happens anyway and leave nothing behind",
      yaml: 'steps:\n  - type: k8s\n    with: {image: a, cleanup_policy: Delete, backoff_limit: 0}',
      want: { executor: { type: 'kubernetes', config: {} }, kubernetes: { image: 'a' } },
    },
  ];
  it.each(cases)('$name', ({ yaml, want }) => {
    const step = firstStep(yaml);
    expect({ executor: step.executor, kubernetes: step.kubernetes }).toEqual(want);
  });
});

describe('DAG-level settings', () => {
  const yaml = (extra: string): string =>
    `kubernetes:\n  image: base:1\n  labels: {team: ml}\n${extra}steps:\n  - command: a\n  - {command: b, kubernetes: {image: tool:2}}\n  - call: child\nhandlerOn:\n  exit: {command: bye}\n`;

  it('are the defaults of every step Pod, handlers included; a step overrides them key by key, and a call step, which has no Pod, gets none', () => {
    const dag = load(yaml(''));
    expect([...dag.steps.map((s) => s.kubernetes), dag.handlerOn.exit?.kubernetes]).toEqual([
      { image: 'base:1', labels: { team: 'ml' } },
      { image: 'tool:2', labels: { team: 'ml' } },
      undefined,
      { image: 'base:1', labels: { team: 'ml' } },
    ]);
  });

  it('are kept on the DAG as written', () => {
    expect(load(yaml('')).kubernetes).toEqual({ image: 'base:1', labels: { team: 'ml' } });
  });

  it('leave steps without settings when neither level has any', () => {
    expect(load('steps: [echo]').steps[0]?.kubernetes).toBeUndefined();
  });

  const workspaces: { name: string; block: string; want: unknown }[] = [
    { name: 'workspace: false opts out', block: 'workspace: false', want: { enabled: false } },
    { name: 'workspace: true asks for the defaults', block: 'workspace: true', want: { enabled: true } },
    {
      name: 'a workspace mapping is enabled unless it says otherwise',
      block: 'workspace: {size: 10Gi}',
      want: { enabled: true, size: '10Gi' },
    },
    {
      name: 'workspace keys come in both spellings, storage_class for storageClassName too',
      block: 'workspace: {storage_class: fast, access_mode: ReadWriteMany, size: 1073741824}',
      want: { enabled: true, storageClassName: 'fast', size: '1073741824', accessMode: 'ReadWriteMany' },
    },
  ];
  it.each(workspaces)('$name', ({ block, want }) => {
    expect(load(`kubernetes:\n  ${block}\nsteps: [echo]`).kubernetes?.workspace).toEqual(want);
  });

  it("warn that a disabled workspace's other settings have no effect", () => {
    const result = loadDag('kubernetes:\n  workspace: {enabled: false, size: 1Gi}\nsteps: [echo]', {
      fileName: 'pods',
    });
    expect(result.warnings.map(formatIssue)).toEqual([
      'kubernetes.workspace: the workspace is disabled (enabled: false), so its other settings have no effect',
    ]);
  });
});
