import { describe, expect, it } from 'vitest';
import { loadDag, type Dag } from '../../../core/dag/index.ts';
import { literalPrecondition, namespaceProblems, runDefinition, unsupported } from './run-definition.ts';

describe('features refused when a run starts', () => {
  const cases: { name: string; yaml: string; want: string[] }[] = [
    { name: 'a plain DAG is accepted', yaml: 'steps: [echo]', want: [] },
    {
      name: 'a numeric container user is accepted',
      yaml: 'container: {image: a, user: "1000:2000"}\nsteps: [echo]',
      want: [],
    },
    {
      name: 'a container user name is refused',
      yaml: 'container: {image: a, user: app}\nsteps: [echo]',
      want: ['container.user: "app" must be a numeric uid or uid:gid on Kubernetes'],
    },
    {
      name: 'a shared container with its startup, readiness and volumes is accepted',
      yaml: 'container: {image: a, startup: command, command: [serve], waitFor: healthy, logPattern: ready, keepContainer: true, volumes: [./d:/d]}\nsteps: [echo]',
      want: [],
    },
    {
      name: 'every problem of the container block is named',
      yaml: 'container: {image: a, network: host, volumes: [/etc:/etc]}\nsteps: [echo]',
      want: [
        'container.volumes[0]: host path /etc is refused on Kubernetes (a step Pod has no host of its own); use a path relative to the workspace or a PersistentVolumeClaim name',
        'container.network: "host" is refused: a Pod has the cluster\'s network only',
      ],
    },
    {
      name: 'a step with nothing to run in the container is refused',
      yaml: 'container: {image: a}\nsteps: [{name: empty, depends: []}]',
      want: ["step empty: has no command or script to run in the DAG's container"],
    },
    {
      name: 'a relative container volume is refused when the DAG turns its workspace off',
      yaml: 'kubernetes: {workspace: false}\ncontainer: {image: a, volumes: [./d:/d]}\nsteps: [echo]',
      want: ["container.volumes[0]: a relative source needs the run's workspace, which is turned off"],
    },
    {
      name: 'an ssh step is accepted',
      yaml: 'steps: [{command: echo, executor: {type: ssh, config: {user: u, host: h}}}]',
      want: [],
    },
    {
      name: 'http, jq and mail steps are accepted',
      yaml: 'steps:\n  - {command: GET http://x, executor: http}\n  - {command: ., script: "{}", executor: jq}\n  - {executor: {type: mail, config: {to: a@b}}}',
      want: [],
    },
    { name: 'a DAG-level ssh block is accepted', yaml: 'ssh: {user: u, host: h}\nsteps: [echo]', want: [] },
    {
      name: 'a gha step is refused with the reason',
      yaml: 'steps: [{command: actions/checkout@v4, executor: gha}]',
      want: [
        'step gha_1: the gha executor is not supported on Kubernetes (it needs a container engine in the cluster)',
      ],
    },
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
    {
      name: 'the run namespace named at DAG level is no problem',
      yaml: 'kubernetes: {namespace: team}\nsteps: [x]',
      want: [],
    },
    {
      name: 'another namespace at DAG level is refused',
      yaml: 'kubernetes: {namespace: other}\nsteps: [x]',
      want: [
        'kubernetes.namespace is "other", but the run is in namespace "team": step Pods run in their run\'s namespace',
      ],
    },
    {
      name: 'another namespace on a Kubernetes-executor step is refused for that step',
      yaml: 'steps:\n  - {name: s, type: kubernetes, with: {namespace: default}, command: x}',
      want: [
        'step s: kubernetes.namespace is "default", but the run is in namespace "team": step Pods run in their run\'s namespace',
      ],
    },
  ])('$name', ({ yaml, want }) => {
    expect(namespaceProblems(dagOf(yaml), 'team')).toEqual(want);
  });
});

describe('the params a run is given', () => {
  const spec = {
    params: [
      { name: 'LIMIT', type: 'integer', default: 10, maximum: 100 },
      { name: 'MODE', enum: ['fast', 'full'], default: 'fast' },
      { name: 'DAY', required: true },
    ],
    steps: [{ run: 'echo $LIMIT' }],
  };
  const definition = (overrides: string): ReturnType<typeof runDefinition> => runDefinition(spec, 'typed', overrides);

  it("are checked against a 2.x DAG's typed params", () => {
    expect(definition('LIMIT=500 MODE=slow DAY=1').rejection).toBe(
      'params.LIMIT: must be <= 100; params.MODE: must be equal to one of the allowed values',
    );
    expect(definition('COLOR=red DAY=1').rejection).toBe('params: must NOT have additional properties');
    expect(definition('LIMIT=5').rejection).toBe("params: must have required property 'DAY'");
  });

  it('keep the defaults of those they do not give', () => {
    const accepted = definition('LIMIT=50 DAY=monday');
    expect(accepted.rejection).toBeUndefined();
    expect(accepted.params.map((p) => [p.name, p.value])).toEqual([
      ['LIMIT', '50'],
      ['MODE', 'fast'],
      ['DAY', 'monday'],
    ]);
  });
});

describe('a literal precondition', () => {
  it('is inverted when negated (Dagu 2.x negate)', () => {
    expect(literalPrecondition({ condition: '$A', expected: 'x' }, { A: 'x' })).toBe(true);
    expect(literalPrecondition({ condition: '$A', expected: 'x', negate: true }, { A: 'x' })).toBe(false);
    expect(literalPrecondition({ condition: '$A', expected: 'x', negate: true }, { A: 'y' })).toBe(true);
  });
});
