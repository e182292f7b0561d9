import { describe, expect, it } from 'vitest';
import { formatIssue } from './issues.ts';
import { loadDag } from './load.ts';

const READ_AS =
  'this file has no key written only in Dagu 1.x or only in 2.x, so it is read as 1.x, as Dagu 1.24 reads it';
const runCall = (name: string): string =>
  `"run" is deprecated; use "call": ${READ_AS}, and "run: ${name}" calls the DAG "${name}"; a Dagu 2.x file runs "${name}" as a shell command (a key only 2.x writes, snake_case such as working_dir, makes the file 2.x)`;
const idName = (generated: string, id: string): string =>
  `${READ_AS}, and this step without a name is named "${generated}"; Dagu 2.x names it by its id "${id}" (write "name: ${id}" to have that name in both)`;

const load = (yaml: string) => loadDag(yaml, { fileName: 'main' });

describe('a file no key of which decides the dialect (read as 1.x)', () => {
  const cases: { name: string; yaml: string; names: string[]; warnings: string[] }[] = [
    {
      name: 'an id-only step',
      yaml: 'steps:\n  - id: build\n    command: make\n  - {name: test, command: make test, depends: [build]}',
      names: ['cmd_1', 'test'],
      warnings: [`steps[0]: ${idName('cmd_1', 'build')}`],
    },
    {
      name: 'id-only steps in a parallel group, named by the group',
      yaml: 'steps:\n  - echo a\n  - - {id: left, command: echo l}\n    - {id: right, command: echo r}',
      names: ['cmd_1', 'parallel_2_echo_1', 'parallel_2_echo_2'],
      warnings: [
        `steps[1][0]: ${idName('parallel_2_echo_1', 'left')}`,
        `steps[1][1]: ${idName('parallel_2_echo_2', 'right')}`,
      ],
    },
    {
      name: 'run: naming a DAG',
      yaml: 'steps:\n  - {name: s, run: child}',
      names: ['s'],
      warnings: [`steps[0].run: ${runCall('child')}`],
    },
    {
      name: 'run: in the name-to-step mapping',
      yaml: 'steps:\n  first: {run: child}\n  second: {run: other, depends: [first]}',
      names: ['first', 'second'],
      warnings: [`steps.first.run: ${runCall('child')}`, `steps.second.run: ${runCall('other')}`],
    },
    {
      name: 'Run: and ID: spelled in capitals, which the 1.x reader matches',
      yaml: 'steps:\n  - {ID: pack, Run: child}',
      names: ['dag_1'],
      warnings: [`steps[0].run: ${runCall('child')}`, `steps[0]: ${idName('dag_1', 'pack')}`],
    },
    {
      name: 'a step with an id and a name, and call:',
      yaml: 'steps:\n  - {id: build, name: compile, command: make}\n  - {name: c, call: child}',
      names: ['compile', 'c'],
      warnings: [],
    },
  ];
  it.each(cases)('with $name: keeps the 1.x reading and says so', ({ yaml, names, warnings }) => {
    const loaded = load(yaml);
    expect(loaded.errors.map(formatIssue)).toEqual([]);
    expect(loaded.dag.steps.map((s) => s.name)).toEqual(names);
    expect(loaded.warnings.map(formatIssue)).toEqual(warnings);
  });
});

describe('a file whose keys decide the dialect', () => {
  const cases: { name: string; yaml: string; names: string[]; warnings: string[] }[] = [
    {
      name: '1.x keys (handlerOn is one): run: is the deprecated call, an id-only step gets the generated name, nothing more said',
      yaml: 'handlerOn: {exit: {run: cleanup}}\nsteps:\n  - {id: build, command: make}\n  - {name: s, run: child}',
      names: ['cmd_1', 's'],
      warnings: [
        'steps[1].run: "run" is deprecated; use "call"',
        'handlerOn.exit.run: "run" is deprecated; use "call"',
      ],
    },
    {
      name: '2.x keys: run: is a command and an id-only step is named by its id',
      yaml: 'timeout_sec: 5\nsteps:\n  - {id: build, run: make}\n  - {name: s, run: child}',
      names: ['build', 's'],
      warnings: [],
    },
  ];
  it.each(cases)('$name', ({ yaml, names, warnings }) => {
    const loaded = load(yaml);
    expect(loaded.errors.map(formatIssue)).toEqual([]);
    expect(loaded.dag.steps.map((s) => s.name)).toEqual(names);
    expect(loaded.warnings.map(formatIssue)).toEqual(warnings);
  });

  it('a local DAG after --- is decided on its own, its warnings under its documents[i]', () => {
    const loaded = load(
      'timeout_sec: 5\nsteps:\n  - run: echo hi\n---\nname: child\nsteps:\n  - {id: only, command: x}',
    );
    expect(loaded.errors.map(formatIssue)).toEqual([]);
    expect(loaded.warnings.map(formatIssue)).toEqual([`documents[1].steps[0]: ${idName('cmd_1', 'only')}`]);
  });
});
