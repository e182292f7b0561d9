import { describe, expect, it } from 'vitest';
import { loadDag } from '../dag/index.ts';
import { dagPolicyProblems, type PolicyContext } from './dag-policy.ts';
import { namespaceLevel } from './namespace.ts';

const baseline: PolicyContext = { level: 'baseline', namespace: 'team' };

describe("what a DAG may ask of its Pods under its namespace's policy", () => {
  const cases: { name: string; yaml: string; context?: PolicyContext; want: string[] }[] = [
    {
      name: 'a plain DAG passes restricted',
      yaml: 'steps: [echo]',
      context: { ...baseline, level: 'restricted' },
      want: [],
    },
    {
      name: 'the escape of issue 24 is refused under baseline for its host path',
      yaml: 'kubernetes:\n  security_context: {run_as_user: 0, allow_privilege_escalation: true}\n  volumes: [{name: host, hostPath: {path: /etc}}]\n  volume_mounts: [{name: host, mountPath: /host-etc}]\nsteps: [{name: escape, command: "id -u"}]',
      want: ['kubernetes.volumes[host].hostPath: host paths are not allowed under pod policy "baseline"'],
    },
    {
      name: 'the escape of issue 24 is refused under restricted for its root user and escalation too',
      yaml: 'kubernetes:\n  security_context: {run_as_user: 0, allow_privilege_escalation: true}\n  volumes: [{name: host, hostPath: {path: /etc}}]\nsteps: [{name: escape, command: "id -u"}]',
      context: { ...baseline, level: 'restricted' },
      want: [
        'kubernetes.volumes[host].hostPath: host paths are not allowed under pod policy "restricted"',
        'kubernetes.securityContext.allowPrivilegeEscalation: must be false under pod policy "restricted"',
        'kubernetes.securityContext.runAsNonRoot: must be true (here or in spec.securityContext) under pod policy "restricted"',
        'kubernetes.securityContext.runAsUser: 0 (root) is not allowed under pod policy "restricted"',
      ],
    },
    {
      name: 'a privileged step is refused under baseline, named by its step',
      yaml: 'steps: [{name: p, command: x, kubernetes: {securityContext: {privileged: true}}}]',
      want: ['step p: kubernetes.securityContext.privileged: true is not allowed under pod policy "baseline"'],
    },
    {
      name: "a kubernetes executor's settings are checked as the step's",
      yaml: 'steps: [{name: k, type: kubernetes, command: x, with: {security_context: {capabilities: {add: [SYS_ADMIN]}}}}]',
      want: [
        'step k: kubernetes.securityContext.capabilities.add: SYS_ADMIN is not allowed under pod policy "baseline"',
      ],
    },
    {
      name: 'a DAG-level setting is named once, not again for each step inheriting it',
      yaml: 'kubernetes: {securityContext: {privileged: true}}\nsteps: [a, b]',
      want: ['kubernetes.securityContext.privileged: true is not allowed under pod policy "baseline"'],
    },
    {
      name: 'everything passes privileged',
      yaml: 'kubernetes: {securityContext: {privileged: true}, volumes: [{name: h, hostPath: {path: /}}]}\nsteps: [a]',
      context: { ...baseline, level: 'privileged' },
      want: [],
    },
    { name: 'a root container passes baseline', yaml: 'container: {image: a, user: "0"}\nsteps: [a]', want: [] },
    {
      name: 'a root container is refused under restricted',
      yaml: 'container: {image: a, user: "0:0"}\nsteps: [a]',
      context: { ...baseline, level: 'restricted' },
      want: ['container.user: 0 (root) is not allowed under pod policy "restricted"'],
    },
    {
      name: 'a service account the namespace allows passes',
      yaml: 'kubernetes: {service_account: etl}\nsteps: [a]',
      context: { ...baseline, serviceAccounts: new Set(['etl']) },
      want: [],
    },
    {
      name: 'a service account the namespace does not allow is refused, even under privileged',
      yaml: 'steps: [{name: s, command: x, kubernetes: {serviceAccountName: admin}}]',
      context: { level: 'privileged', namespace: 'team', serviceAccounts: new Set(['etl']) },
      want: [
        'step s: kubernetes.serviceAccountName: "admin" is not allowed for Kubedag runs in namespace "team" (an administrator labels the ServiceAccount kubedag.io/allow-runs=true)',
      ],
    },
    {
      name: 'service accounts go unchecked where the allowed ones are unknown',
      yaml: 'kubernetes: {service_account: admin}\nsteps: [a]',
      want: [],
    },
  ];
  it.each(cases)('$name', ({ yaml, context, want }) => {
    const load = loadDag(yaml, { fileName: 'p' });
    expect(load.errors).toEqual([]);
    expect(dagPolicyProblems(load.dag, context ?? baseline)).toEqual(want);
  });
});

describe('what the DAG language refuses before any policy', () => {
  // Keys the Pod Security Standards name but the kubernetes block has none of: no level can allow them.
  it.each([
    {
      name: 'procMount',
      yaml: 'kubernetes: {securityContext: {procMount: Unmasked}}\nsteps: [a]',
      path: 'kubernetes.securityContext.procMount',
    },
    { name: 'hostNetwork', yaml: 'kubernetes: {hostNetwork: true}\nsteps: [a]', path: 'kubernetes.hostNetwork' },
    {
      name: 'hostPID',
      yaml: 'steps: [{name: a, command: x, kubernetes: {host_pid: true}}]',
      path: 'steps[0].kubernetes.host_pid',
    },
  ])('$name is an unknown key', ({ yaml, path }) => {
    expect(loadDag(yaml, { fileName: 'p' }).errors.map((e) => e.path)).toEqual([path]);
  });
});

describe("a namespace's level", () => {
  it.each([
    { name: 'no label is the default', labels: undefined, want: { level: 'baseline' } },
    { name: 'a label raises it', labels: { 'kubedag.io/pod-policy': 'privileged' }, want: { level: 'privileged' } },
    { name: 'a label lowers it', labels: { 'kubedag.io/pod-policy': 'restricted' }, want: { level: 'restricted' } },
    {
      name: 'a misspelt label leaves the default and says so',
      labels: { 'kubedag.io/pod-policy': 'Privileged' },
      want: {
        level: 'baseline',
        problem:
          'label kubedag.io/pod-policy="Privileged" is none of privileged, baseline, restricted; the default "baseline" applies',
      },
    },
  ])('$name', ({ labels, want }) => {
    expect(namespaceLevel(labels, 'baseline')).toEqual(want);
  });
});
