import { describe, expect, it } from 'vitest';
import { loadDag, type Dag } from '../../core/dag/index.ts';
import { namespaceProblems, unsupported } from './definition.ts';

describe('features refused when a run starts', () => {
  const cases: { name: string; yaml: string; want: string[] }[] = [
    { name: 'a plain DAG is accepted', yaml: 'steps: [echo]', want: [] },
    { name: 'a numeric container user is accepted', yaml: 'container: {image: a, user: "1000:2000"}\nsteps: [echo]', want: [] },
    { name: 'a container user name is refused', yaml: 'container: {image: a, user: app}\nsteps: [echo]', want: ['container.user: "app" must be a numeric uid or uid:gid on Kubernetes'] },
    { name: 'a shared keepalive container is refused', yaml: 'container: {image: a, startup: keepalive}\nsteps: [echo]', want: ['container: startup (one shared container for all steps) is not supported yet'] },
    { name: 'an ssh step is accepted', yaml: 'steps: [{command: echo, executor: {type: ssh, config: {user: u, host: h}}}]', want: [] },
    { name: 'http, jq and mail steps are accepted', yaml: 'steps:\n  - {command: GET http://x, executor: http}\n  - {command: ., script: "{}", executor: jq}\n  - {executor: {type: mail, config: {to: a@b}}}', want: [] },
    { name: 'a DAG-level ssh block is accepted', yaml: 'ssh: {user: u, host: h}\nsteps: [echo]', want: [] },
    { name: 'a gha step is refused with the reason', yaml: 'steps: [{command: actions/checkout@v4, executor: gha}]', want: ['step gha_1: the gha executor is not supported on Kubernetes (it needs a container engine in the cluster)'] },
  ];
  it.each(cases)('$name', ({ yaml, want }) => {
    const load = loadDag(yaml, { fileName: 'u' });
    expect(load.errors).toEqual([]);
    expect(unsupported(load.dag)).toEqual(want);
  });
});

describe('the namespace a Dagu file names for its Pods', () => {
  const dagOf = (yaml: string): Dag => loadDag(yaml, { fileName: 'ns' }).dag;
  it.each([
    { name: 'no namespace named is no problem', yaml: 'steps: [x]', want: [] },
    { name: 'the run namespace named at DAG level is no problem', yaml: 'kubernetes: {namespace: team}\nsteps: [x]', want: [] },
    { name: 'another namespace at DAG level is refused', yaml: 'kubernetes: {namespace: other}\nsteps: [x]', want: ['kubernetes.namespace is "other", but the run is in namespace "team": step Pods run in their run\'s namespace'] },
    {
      name: 'another namespace on a Kubernetes-executor step is refused for that step',
      yaml: 'steps:\n  - {name: s, type: kubernetes, with: {namespace: default}, command: x}',
      want: ['step s: kubernetes.namespace is "default", but the run is in namespace "team": step Pods run in their run\'s namespace'],
    },
  ])('$name', ({ yaml, want }) => {
    expect(namespaceProblems(dagOf(yaml), 'team')).toEqual(want);
  });
});
