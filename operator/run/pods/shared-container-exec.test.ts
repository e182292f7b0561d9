import { describe, expect, it } from 'vitest';
import { loadDag, type Dag, type Step } from '../../../core/dag/index.ts';
import { sharedContainerPodName } from '../../../core/resources/names.ts';
import { executorSpec } from './executor-spec.ts';
import { sharedContainer, type SharedContainer } from './shared-container.ts';
import { sharedArgv } from './shared-container-exec.ts';

function load(yaml: string): { dag: Dag; step: Step; container: SharedContainer } {
  const loaded = loadDag(yaml, { fileName: 'shared' });
  expect(loaded.errors).toEqual([]);
  const read = sharedContainer(loaded.dag.container ?? {}, true);
  if ('problems' in read) throw new Error(read.problems.join('; '));
  return { dag: loaded.dag, step: loaded.dag.steps[0] as Step, container: read.container };
}

const expandWord = (word: string): string => word.replace('${WHO}', 'a b');
const WRAPPER_HEAD = ['sh', '-c'];

describe("the command a step execs in the run's container", () => {
  it.each([
    {
      name: 'a command runs as its words, each expanded on its own, with no shell',
      steps: '  - echo "${WHO}" done',
      want: ['echo', 'a b', 'done'],
    },
    {
      name: "a script runs with the step's command as its interpreter",
      steps: '  - {command: python3 -u, script: "print(1)"}',
      want: ['print(1)', 'python3', '-u'],
    },
    {
      name: 'a script with a shebang runs as an executable',
      steps: '  - {script: "#!/usr/bin/env python3\\nprint(1)"}',
      want: ['#!/usr/bin/env python3\nprint(1)'],
    },
    {
      name: "a script without one runs with the DAG's shell",
      steps: '  - {script: "echo hi"}',
      want: ['echo hi', '/bin/sh', '-e'],
    },
    {
      name: 'a step shell wins over a shebang',
      steps: '  - {shell: bash, script: "#!/bin/sh\\necho hi"}',
      want: ['#!/bin/sh\necho hi', 'bash'],
    },
  ])('$name', ({ steps, want }) => {
    const { dag, step } = load(`container: {image: alpine}\nsteps:\n${steps}`);
    const argv = sharedArgv(dag, step, expandWord);
    // A script travels as the wrapper's first argument, its interpreter after it.
    expect(step.script === undefined ? argv : [argv.slice(0, 2), argv.slice(4)]).toEqual(
      step.script === undefined ? want : [WRAPPER_HEAD, want],
    );
  });
});

describe("the executor spec of a step in the run's container", () => {
  it("execs into the run's container Pod with the step's dir, environment, stop settings and the readiness to wait for", () => {
    const { dag, step, container } = load(
      'maxCleanUpTimeSec: 6\ncontainer: {image: alpine, waitFor: healthy, logPattern: "^ready$"}\nsteps:\n  - {command: make, dir: src, signalOnStop: SIGINT, env: [A=1]}',
    );
    const spec = executorSpec(dag, step, 'make', {
      namespace: 'team',
      runName: 'etl-r1',
      expandWord,
      container,
      envNames: ['A', 'DAG_NAME', 'A'],
    });
    expect(spec).toEqual({
      type: 'container-exec',
      argv: ['make'],
      config: {},
      exec: {
        namespace: 'team',
        pod: sharedContainerPodName('etl-r1'),
        container: 'main',
        workingDir: 'src',
        env: ['A=${A}', 'DAG_NAME=${DAG_NAME}'],
        stopSignal: 'SIGINT',
        graceMs: 5000,
        ready: { healthy: true, logPattern: '^ready$', timeoutSeconds: 120 },
      },
    });
  });

  it('gives a step that names the shell executor no exec: it runs in a Pod of its own', () => {
    const { dag, step, container } = load('container: {image: alpine}\nsteps: [{command: make, executor: shell}]');
    expect(
      executorSpec(dag, step, 'make', { namespace: 'team', runName: 'etl-r1', expandWord, container, envNames: [] }),
    ).toBeUndefined();
  });
});
