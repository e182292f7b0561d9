import { describe, expect, it } from 'vitest';
import { loadDag, type Step } from '../../../core/dag/index.ts';
import { executorSpec } from '../pods/executor-spec.ts';
import { unsupported } from '../decide/run-definition.ts';
import { needsExecAccount } from './run-resources.ts';

function load(yaml: string): ReturnType<typeof loadDag>['dag'] {
  const loaded = loadDag(yaml, { fileName: 'inside' });
  expect(loaded.errors).toEqual([]);
  return loaded.dag;
}

const step = (config: string, more = 'command: echo hi'): string =>
  `steps:\n  - {name: s, executor: {type: docker, config: ${config}}, ${more}}`;

describe('which docker steps with containerName a run accepts', () => {
  it.each([
    { name: 'a Pod name alone is accepted', yaml: step('{containerName: db}'), want: [] },
    { name: 'a Pod and container name is accepted', yaml: step('{containerName: db/postgres}'), want: [] },
    {
      name: 'exec workingDir and env are accepted',
      yaml: step('{containerName: db, exec: {workingDir: /tmp, env: [A=1]}}'),
      want: [],
    },
    {
      name: 'a containerName of three parts is refused',
      yaml: step('{containerName: a/b/c}'),
      want: [
        'step s: executor.config.containerName "a/b/c" must be <pod> or <pod>/<container>, a Pod in the run\'s namespace',
      ],
    },
    {
      name: 'exec user is refused, as the exec API has no user',
      yaml: step('{containerName: db, exec: {user: root}}'),
      want: [
        "step s: executor.config.exec.user is not supported on Kubernetes: the exec API has no user, the command runs as the container's user",
      ],
    },
    {
      name: 'an exec setting other than workingDir and env is refused by name',
      yaml: step('{containerName: db, exec: {privileged: true}}'),
      want: ['step s: executor.config.exec.privileged is not supported on Kubernetes (supported: workingDir, env)'],
    },
    {
      name: 'exec env that is not NAME=value is refused',
      yaml: step('{containerName: db, exec: {env: [A]}}'),
      want: ['step s: executor.config.exec.env must be a list of NAME=value entries'],
    },
    {
      name: 'a step without a command is refused',
      yaml: step('{containerName: db}', 'depends: []'),
      want: ['step s: a step that runs in an existing container (containerName) needs a command or a script'],
    },
    {
      name: 'a script is accepted: it runs from a file in the container',
      yaml: step('{containerName: db}', 'command: sh, script: "echo hi"'),
      want: [],
    },
    {
      name: 'exec settings with an image are accepted: they apply when the container runs',
      yaml: step('{image: alpine, containerName: db, exec: {workingDir: /}}'),
      want: [],
    },
    {
      name: 'exec settings with an image are checked too',
      yaml: step('{image: alpine, containerName: db, exec: {tty: true}}'),
      want: ['step s: executor.config.exec.tty is not supported on Kubernetes (supported: workingDir, env)'],
    },
  ])('$name', ({ yaml, want }) => {
    expect(unsupported(load(yaml))).toEqual(want);
  });
});

describe('the executor spec of a containerName step', () => {
  const context = {
    namespace: 'team',
    runName: 'r',
    envNames: [],
    expandWord: (w: string): string => w.replace('${WHO}', 'a b'),
  };

  it('names the Pod and container, the words of the command each expanded, and the stop settings', () => {
    const dag = load(
      `maxCleanUpTimeSec: 10\n${step('{containerName: db/pg, exec: {workingDir: /data, env: ["X=${WHO}"]}}', 'command: \'echo "${WHO}" done\', signalOnStop: SIGINT')}`,
    );
    expect(executorSpec(dag, dag.steps[0] as Step, 'echo a b done', context)).toEqual({
      type: 'container-exec',
      argv: ['echo', 'a b', 'done'],
      config: { containerName: 'db/pg', exec: { workingDir: '/data', env: ['X=${WHO}'] } },
      exec: {
        namespace: 'team',
        pod: 'db',
        container: 'pg',
        workingDir: '/data',
        env: ['X=${WHO}'],
        stopSignal: 'SIGINT',
        graceMs: 9000,
      },
    });
  });

  it('leaves the container to the runner when only a Pod is named', () => {
    const dag = load(step('{containerName: db}'));
    expect(executorSpec(dag, dag.steps[0] as Step, 'echo hi', context)?.exec).toEqual({
      namespace: 'team',
      pod: 'db',
      stopSignal: 'SIGTERM',
      graceMs: 4000,
    });
  });

  it('gives a docker step with an image no spec when its container did not run at launch: it runs as a Pod from that image', () => {
    const dag = load(step('{image: alpine, containerName: db}'));
    expect(executorSpec(dag, dag.steps[0] as Step, 'echo hi', context)).toBeUndefined();
  });

  it('execs a docker step with an image into its container when that ran at launch, as Dagu does', () => {
    const dag = load(step('{image: alpine, containerName: db, exec: {workingDir: /w}}'));
    expect(executorSpec(dag, dag.steps[0] as Step, 'echo hi', { ...context, containerRunning: true })?.exec).toEqual({
      namespace: 'team',
      pod: 'db',
      workingDir: '/w',
      stopSignal: 'SIGTERM',
      graceMs: 4000,
    });
  });

  it('runs a script from a file in the container with the command as its interpreter', () => {
    const dag = load(step('{containerName: db}', 'command: python3, script: "print(1)"'));
    expect(executorSpec(dag, dag.steps[0] as Step, 'python3', context)?.argv?.slice(-2)).toEqual([
      'print(1)',
      'python3',
    ]);
  });
});

describe('whether a run needs its exec ServiceAccount', () => {
  it.each([
    { name: 'a run without containerName steps does not', yaml: 'steps: [echo hi]', want: false },
    { name: 'a run with a containerName step does', yaml: step('{containerName: db}'), want: true },
    {
      name: 'a run with a containerName and image step does: it may exec',
      yaml: step('{image: alpine, containerName: db}'),
      want: true,
    },
    {
      name: 'a run with a containerName handler does',
      yaml: `handlerOn:\n  exit: {executor: {type: docker, config: {containerName: db}}, command: echo bye}\nsteps: [echo hi]`,
      want: true,
    },
    {
      name: 'a run whose DAG names its own ServiceAccount does not',
      yaml: `kubernetes: {serviceAccountName: mine}\n${step('{containerName: db}')}`,
      want: false,
    },
    {
      name: 'a run whose steps run in its DAG-level container does',
      yaml: 'container: {image: alpine}\nsteps: [echo hi]',
      want: true,
    },
    {
      name: 'a run with a container whose steps all name other executors does not',
      yaml: 'container: {image: alpine}\nsteps: [{command: echo hi, executor: shell}]',
      want: false,
    },
  ])('$name', ({ yaml, want }) => {
    expect(needsExecAccount(load(yaml))).toBe(want);
  });
});
