import { describe, expect, it } from 'vitest';
import { loadDag } from './load.ts';
import type { Step } from './model.ts';

function steps(yaml: string): Step[] {
  const load = loadDag(yaml, { fileName: 'steps' });
  expect(load.errors).toEqual([]);
  return [...load.dag.steps];
}

const wiring = (yaml: string): [string, string[]][] => steps(yaml).map((s) => [s.name, [...s.depends]]);

describe('step names and dependency wiring', () => {
  const cases: { name: string; yaml: string; want: [string, string[]][] }[] = [
    {
      name: 'chain runs bare string steps in order with generated cmd names',
      yaml: 'steps:\n  - echo a\n  - echo b\n  - echo c',
      want: [
        ['cmd_1', []],
        ['cmd_2', ['cmd_1']],
        ['cmd_3', ['cmd_2']],
      ],
    },
    {
      name: 'a nested list is a parallel group between its neighbours',
      yaml: 'steps:\n  - echo a\n  - [echo b, echo c]\n  - echo d',
      want: [
        ['cmd_1', []],
        ['parallel_2_echo_1', ['cmd_1']],
        ['parallel_2_echo_2', ['cmd_1']],
        ['cmd_3', ['parallel_2_echo_1', 'parallel_2_echo_2']],
      ],
    },
    {
      name: 'chain adds the previous step to explicit depends without repeating it',
      yaml: 'steps:\n  - {name: a, command: echo}\n  - {name: b, command: echo}\n  - {name: c, command: echo, depends: [a, b]}',
      want: [
        ['a', []],
        ['b', ['a']],
        ['c', ['a', 'b']],
      ],
    },
    {
      name: 'chain recognises the previous step by id as well as by name',
      yaml: 'steps:\n  - {name: a, id: first, command: echo}\n  - {name: b, command: echo, depends: first}',
      want: [
        ['a', []],
        ['b', ['a']],
      ],
    },
    {
      name: 'depends: [] opts a step out of chain order, and the next step still follows it',
      yaml: 'steps:\n  - {name: a, command: echo}\n  - {name: b, command: echo, depends: []}\n  - {name: c, command: echo}',
      want: [
        ['a', []],
        ['b', []],
        ['c', ['b']],
      ],
    },
    {
      name: 'graph uses explicit depends only and flattens groups',
      yaml: 'type: graph\nsteps:\n  - {name: a, command: echo}\n  - [{name: b, command: echo, depends: a}, {name: c, command: echo}]\n  - {name: d, command: echo, depends: [b, c]}',
      want: [
        ['a', []],
        ['b', ['a']],
        ['c', []],
        ['d', ['b', 'c']],
      ],
    },
    {
      name: 'map-form steps take their key as name and get no chain links',
      yaml: 'steps:\n  build: {command: make}\n  test: {command: make test, depends: build}\n  lint: {command: make lint}',
      want: [
        ['build', []],
        ['test', ['build']],
        ['lint', []],
      ],
    },
    {
      name: 'generated names skip names written elsewhere in the file',
      yaml: 'steps:\n  - echo a\n  - {name: cmd_2, command: echo}\n  - echo c\n  - echo d',
      want: [
        ['cmd_1', []],
        ['cmd_2', ['cmd_1']],
        ['cmd_3', ['cmd_2']],
        ['cmd_4', ['cmd_3']],
      ],
    },
    {
      name: 'a generated name bumps past a taken position',
      yaml: 'steps:\n  - {name: cmd_3, command: echo}\n  - echo b\n  - echo c',
      want: [
        ['cmd_3', []],
        ['cmd_2', ['cmd_3']],
        ['cmd_4', ['cmd_2']],
      ],
    },
    {
      name: 'depends by id is rewritten to the step name',
      yaml: 'type: graph\nsteps:\n  - {name: extract-data, id: extract, command: echo}\n  - {name: load, command: echo, depends: extract}',
      want: [
        ['extract-data', []],
        ['load', ['extract-data']],
      ],
    },
  ];
  it.each(cases)('$name', ({ yaml, want }) => {
    expect(wiring(yaml)).toEqual(want);
  });
});

describe('generated step names by kind', () => {
  const cases: { name: string; step: string; want: string }[] = [
    { name: 'a multi-line command is a script', step: '{command: "echo a\\necho b"}', want: 'script_1' },
    { name: 'a script step is a script', step: '{script: "echo a"}', want: 'script_1' },
    { name: 'a call is a dag step', step: '{call: child}', want: 'dag_1' },
    { name: 'a parallel call is a parallel step', step: '{call: child, parallel: [a, b]}', want: 'parallel_1' },
    {
      name: 'an http step is named by its executor',
      step: '{command: GET https://example.com, executor: http}',
      want: 'http_1',
    },
    {
      name: 'a docker step is named by its executor',
      step: '{executor: {type: docker, config: {image: alpine}}}',
      want: 'docker_1',
    },
    {
      name: 'a kubernetes step written as Dagu 2.x does is named by its executor',
      step: '{type: k8s, with: {image: alpine}}',
      want: 'kubernetes_1',
    },
    { name: 'a list command is a cmd', step: '{command: [ls, -l]}', want: 'cmd_1' },
  ];
  it.each(cases)('$name', ({ step, want }) => {
    expect(steps(`steps:\n  - ${step}`)[0]?.name).toBe(want);
  });

  it('names group members after the basename of their command, within 40 characters', () => {
    const names = steps(`steps:\n  - [/usr/local/bin/${'x'.repeat(60)} run, "python3 -m job"]`).map((s) => s.name);
    expect(names).toEqual([`parallel_1_${'x'.repeat(27)}_1`, 'parallel_1_python3_2']);
    expect(names[0]).toHaveLength(40);
  });
});

describe('step fields', () => {
  const one = (yaml: string): Step => steps(`steps:\n  - ${yaml}`)[0] as Step;

  it('splits a one-line command into executable and arguments and keeps the line', () => {
    expect(one(`'echo "hello world" $HOME'`)).toMatchObject({
      command: 'echo',
      args: ['hello world', '$HOME'],
      cmdWithArgs: 'echo "hello world" $HOME',
    });
  });

  it('appends args to the command arguments', () => {
    expect(one('{command: python3 job.py, args: [--date, "2026-01-01", 3]}')).toMatchObject({
      command: 'python3',
      args: ['job.py', '--date', '2026-01-01', '3'],
      cmdWithArgs: 'python3 job.py --date 2026-01-01 3',
    });
  });

  it('keeps a list command as written and rebuilds a quoted line', () => {
    expect(one('{command: [printf, "%s\\n", a b]}')).toMatchObject({
      command: 'printf',
      args: ['%s\n', 'a b'],
      cmdWithArgs: `printf '%s\n' 'a b'`,
    });
  });

  it('turns a multi-line command into an inline script', () => {
    const step = one('{command: "#!/bin/bash\\necho hi\\n"}');
    expect(step.script).toBe('#!/bin/bash\necho hi\n');
    expect(step.command).toBeUndefined();
  });

  it('prefers workingDir over the legacy dir', () => {
    expect(one('{command: ls, dir: /a, workingDir: /b}').dir).toBe('/b');
    expect(one('{command: ls, dir: /a}').dir).toBe('/a');
  });

  it('strips a leading $ from output', () => {
    expect(one('{command: date, output: $NOW}').output).toBe('NOW');
  });

  it('fills continueOn defaults and reads exit codes in every form', () => {
    expect(one('{command: x, continueOn: {exitCode: "3"}}').continueOn).toEqual({
      failure: false,
      skipped: false,
      exitCode: [3],
      output: [],
      markSuccess: false,
    });
    expect(one('{command: x, continueOn: {exitCode: [1, "2"], output: "re:^WARN"}}').continueOn).toMatchObject({
      exitCode: [1, 2],
      output: ['re:^WARN'],
    });
    expect(one('{command: x, continueOn: failed}').continueOn.failure).toBe(true);
  });

  it('reads retryPolicy with backoff true as a multiplier of 2', () => {
    expect(
      one('{command: x, retryPolicy: {limit: 3, intervalSec: 10, backoff: true, maxIntervalSec: 60, exitCode: [1]}}')
        .retryPolicy,
    ).toEqual({
      limit: 3,
      intervalSec: 10,
      exitCode: [1],
      backoff: 2,
      maxIntervalSec: 60,
    });
  });

  it('keeps retry counts that are variables for the runtime', () => {
    expect(one('{command: x, retryPolicy: {limit: "${N}", intervalSec: "5"}}').retryPolicy).toMatchObject({
      limit: '${N}',
      intervalSec: 5,
    });
  });

  const repeatCases: { name: string; policy: string; want: string | undefined }[] = [
    { name: 'repeat true repeats while the step succeeds', policy: '{repeat: true, intervalSec: 5}', want: 'while' },
    {
      name: 'condition with expected is inferred as until',
      policy: '{condition: "$S", expected: done}',
      want: 'until',
    },
    { name: 'condition alone is inferred as while', policy: '{condition: "`check`"}', want: 'while' },
    { name: 'exit codes alone are inferred as while', policy: '{exitCode: [1]}', want: 'while' },
    { name: 'an explicit mode wins over inference', policy: '{repeat: until, exitCode: [0]}', want: 'until' },
    { name: 'nothing to repeat on gives no policy', policy: '{intervalSec: 5}', want: undefined },
  ];
  it.each(repeatCases)('$name', ({ policy, want }) => {
    expect(one(`{command: x, repeatPolicy: ${policy}}`).repeatPolicy?.repeat).toBe(want);
  });

  it('merges preconditions and precondition, command as a condition without expected', () => {
    expect(
      one(
        '{command: x, preconditions: [test -f a, {condition: "$D", expected: "re:^2"}], precondition: {command: "true"}}',
      ).preconditions,
    ).toEqual([{ condition: 'test -f a' }, { condition: '$D', expected: 're:^2' }, { condition: 'true' }]);
  });

  it('reads executor dag with command as a call of that DAG', () => {
    expect(one('{executor: dag, command: child.yaml, params: "A=1"}')).toMatchObject({
      call: 'child',
      args: [],
      params: 'A=1',
      executor: { type: 'dag' },
    });
    expect(one('{executor: dag, command: child.yaml}').command).toBeUndefined();
  });

  it('normalises signal names', () => {
    expect(one('{command: x, signalOnStop: int}').signalOnStop).toBe('SIGINT');
    expect(one('{command: x}').signalOnStop).toBe('SIGTERM');
  });

  it('reads parallel in all three forms', () => {
    expect(one('{call: c, parallel: [a, b]}').parallel).toEqual({ items: ['a', 'b'], maxConcurrent: 0 });
    expect(one('{call: c, parallel: "${ITEMS}"}').parallel).toEqual({ items: '${ITEMS}', maxConcurrent: 0 });
    expect(one('{call: c, parallel: {items: [{x: 1}], maxConcurrent: 2}}').parallel).toEqual({
      items: [{ x: 1 }],
      maxConcurrent: 2,
    });
  });

  it('stringifies worker selector values YAML read as other types', () => {
    expect(one('{command: x, workerSelector: {gpu: true, zone: " eu "}}').workerSelector).toEqual({
      gpu: 'true',
      zone: 'eu',
    });
  });

  it('keeps env in written order with every value as text', () => {
    expect(one('{command: x, env: [{B: 2}, A=1=2, {C: null}]}').env).toEqual([
      { name: 'B', value: '2' },
      { name: 'A', value: '1=2' },
      { name: 'C', value: '' },
    ]);
  });

  it('makes ssh the default executor when the DAG has an ssh block', () => {
    const load = loadDag('ssh: {host: db, user: ops}\nsteps: [uptime]', { fileName: 'x' });
    expect(load.errors).toEqual([]);
    expect(load.dag.steps[0]?.executor.type).toBe('ssh');
    expect(load.dag.steps[0]?.name).toBe('ssh_1');
  });
});
