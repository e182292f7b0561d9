import { describe, expect, it } from 'vitest';
import { loadDag } from './load.ts';

const errorsOf = (yaml: string): string[] =>
  loadDag(yaml, { fileName: 'a' }).errors.map((e) => `${e.path}: ${e.message}`);

describe('Dagu 2.x declared outputs', () => {
  it('reads outputs into the step, a type defaulting to string, names trimmed', () => {
    const { dag, errors } = loadDag(
      'steps:\n  - {id: a, run: echo, outputs: [{name: x}, {name: " y ", type: json}]}\n  - {id: b, run: "echo ${steps.a.outputs.x}", depends: [a]}',
      { fileName: 'a' },
    );
    expect(errors).toEqual([]);
    expect(dag.steps[0]?.declaredOutputs).toEqual([
      { name: 'x', type: 'string' },
      { name: 'y', type: 'json' },
    ]);
    expect(dag.steps[1]?.cmdWithArgs).toBe('echo ${steps.a.outputs.x}');
  });

  it.each([
    ['a docker step that names an image', '{id: a, action: docker.run, with: {image: alpine, command: echo}'],
    ['a container step that names an image', '{id: a, type: container, with: {image: alpine}, command: echo'],
    ['a kubernetes step', '{id: a, action: k8s.run, with: {image: alpine, command: echo}'],
  ])('reads outputs on %s, which runs in a step Pod of its own', (_name, step) => {
    const { dag, errors } = loadDag(`steps:\n  - ${step}, outputs: [{name: x}]}`, { fileName: 'a' });
    expect(errors.map((e) => `${e.path}: ${e.message}`)).toEqual([]);
    expect(dag.steps[0]?.declaredOutputs).toEqual([{ name: 'x', type: 'string' }]);
  });

  it('reads outputs on a handler', () => {
    const { dag, errors } = loadDag(
      'steps:\n  - run: echo\nhandler_on:\n  exit: {id: h, run: echo, outputs: [{name: x}]}',
      { fileName: 'a' },
    );
    expect(errors).toEqual([]);
    expect(dag.handlerOn.exit?.declaredOutputs).toEqual([{ name: 'x', type: 'string' }]);
  });

  it('marks a file as 2.x: beside 1.x keys it is a mix', () => {
    expect(errorsOf('steps:\n  - {id: a, command: echo, retryPolicy: {limit: 1}, outputs: [{name: x}]}')[0]).toMatch(
      /^steps\[0\]\.outputs: "outputs" is a Dagu 2.x key, but this file is written in Dagu 1.x keys/,
    );
  });

  const cases: [string, string, string[]][] = [
    ['no id', '{run: echo, outputs: [{name: x}]}', ['steps[0].outputs: a step with outputs must define id']],
    ['not a list', '{id: a, run: echo, outputs: {x: 1}}', ['steps[0].outputs: must be a non-empty sequence']],
    ['an empty list', '{id: a, run: echo, outputs: []}', ['steps[0].outputs: must be a non-empty sequence']],
    ['an item that is no object', '{id: a, run: echo, outputs: [x]}', ['steps[0].outputs[0]: must be an object']],
    ['an empty item', '{id: a, run: echo, outputs: [{}]}', ['steps[0].outputs[0]: must not be empty']],
    [
      'an unknown field',
      '{id: a, run: echo, outputs: [{name: x, default: 1}]}',
      ['steps[0].outputs[0].default: unknown field "default" (an output takes name, type, path)'],
    ],
    ['no name', '{id: a, run: echo, outputs: [{type: json}]}', ['steps[0].outputs[0]: name is required']],
    [
      'a name that is no string',
      '{id: a, run: echo, outputs: [{name: 12}]}',
      ['steps[0].outputs[0].name: must be a string'],
    ],
    [
      'a name that starts with a digit',
      '{id: a, run: echo, outputs: [{name: 1x}]}',
      ['steps[0].outputs[0].name: "1x" must match ^[A-Za-z][A-Za-z0-9_]*$'],
    ],
    [
      'a name with a dash',
      '{id: a, run: echo, outputs: [{name: a-b}]}',
      ['steps[0].outputs[0].name: "a-b" must match ^[A-Za-z][A-Za-z0-9_]*$'],
    ],
    [
      'a duplicate',
      '{id: a, run: echo, outputs: [{name: x}, {name: x}]}',
      ['steps[0].outputs[1].name: duplicate output name "x"'],
    ],
    [
      'an unknown type',
      '{id: a, run: echo, outputs: [{name: x, type: number}]}',
      ['steps[0].outputs[0].type: must be "string" or "json"'],
    ],
    [
      'type beside path',
      '{id: a, run: echo, outputs: [{name: x, type: json, path: f}]}',
      ['steps[0].outputs[0]: type and path cannot be used together'],
    ],
    [
      'a sub-DAG step',
      '{id: a, action: dag.run, with: {dag: child}, outputs: [{name: x}]}',
      [
        "steps[0].outputs: Dagu 2.x feature outputs on a sub-DAG step is not supported: a sub-DAG step runs no command of its own in Kubedag (its work is the child run); publish the value from the child DAG's steps, or from a step after this one",
      ],
    ],
    [
      'a docker step that execs into a named container',
      '{id: a, type: docker, with: {container_name: db}, command: echo, outputs: [{name: x}]}',
      [
        "steps[0].outputs: Dagu 2.x feature outputs on a docker step that names a container (containerName: its command runs in that container, through exec) is not supported: the step Pod's runner reads the file back after the command, in its own filesystem, and this command runs elsewhere; print the value and publish it with output: {NAME: {from: stdout}}",
      ],
    ],
    [
      'an ssh step',
      '{id: a, action: ssh.run, with: {command: echo, host: h, user: u}, outputs: [{name: x}]}',
      [
        "steps[0].outputs: Dagu 2.x feature outputs on a step of type ssh is not supported: the step Pod's runner reads the file back after the command, in its own filesystem, and this command runs elsewhere; print the value and publish it with output: {NAME: {from: stdout}}",
      ],
    ],
  ];
  it.each(cases)('refuses %s', (_name, step, want) => {
    expect(errorsOf(`steps:\n  - ${step}`).filter((e) => !e.includes('run cannot be used together'))).toEqual(want);
  });

  it('refuses outputs on a step that runs in the DAG-level container', () => {
    expect(
      errorsOf(
        'container: {image: alpine}\nsteps:\n  - {id: a, run: echo, outputs: [{name: x}]}\n  - {id: b, type: command, command: echo, outputs: [{name: x}]}',
      ),
    ).toEqual([
      "steps[0].outputs: Dagu 2.x feature outputs on a step that runs in the DAG-level container is not supported: the step Pod's runner reads the file back after the command, in its own filesystem, and this command runs elsewhere (the DAG-level container); print the value and publish it with output: {NAME: {from: stdout}}",
      "steps[1].outputs: Dagu 2.x feature outputs on a step that runs in the DAG-level container is not supported: the step Pod's runner reads the file back after the command, in its own filesystem, and this command runs elsewhere (the DAG-level container); print the value and publish it with output: {NAME: {from: stdout}}",
    ]);
  });

  it('reads ${steps.<id>.outputs.<name>} and still refuses the other ${steps.…} forms', () => {
    expect(
      errorsOf('steps:\n  - {id: a, run: echo, outputs: [{name: x}]}\n  - {run: "echo ${steps.a.outputs.x}"}'),
    ).toEqual([]);
    expect(errorsOf('steps:\n  - {id: a, run: echo}\n  - {run: "echo ${steps.a.outputs}"}')).toEqual([
      'steps[1].run: Dagu 2.x feature ${steps.…} references other than ${steps.<id>.outputs.<name>} is not supported: Dagu 2.x resolves only ${steps.<id>.outputs.<name>} and leaves any other form as written; publish the value as an output of step <id> and write that form',
    ]);
  });
});
