import { describe, expect, it } from 'vitest';
import { formatIssue } from './issues.ts';
import { loadDag } from './load.ts';

const load = (yaml: string): ReturnType<typeof loadDag> => loadDag(yaml, { fileName: 'example' });
const errorsOf = (yaml: string): string[] => load(yaml).errors.map(formatIssue);

describe('consts and scoped references in a 2.x file', () => {
  it("substitutes constants where the file is loaded, keeping a whole reference's type", () => {
    const dag = load(
      'consts:\n  - {N: 2}\n  - {WHO: "team ${consts.N}"}\nsteps:\n  - {name: s, run: "echo ${consts.WHO}", retry_policy: {limit: "${consts.N}"}}',
    ).dag;
    expect(dag.steps[0]?.cmdWithArgs).toBe('echo team 2');
    expect(dag.steps[0]?.retryPolicy?.limit).toBe(2);
  });

  it('makes ${params.x} and ${env.X} the variables Kubedag substitutes per run', () => {
    const step = load('params: [A=1]\nsteps:\n  - {name: s, run: "echo ${params.A} ${env.HOME}", timeout_sec: 1}').dag
      .steps[0];
    expect(step?.cmdWithArgs).toBe('echo ${A} ${HOME}');
  });

  it("leaves a 1.x file's text alone", () => {
    expect(load('timeoutSec: 1\nsteps:\n  - {name: s, command: "echo ${params.A}"}').dag.steps[0]?.cmdWithArgs).toBe(
      'echo ${params.A}',
    );
  });

  it.each([
    [
      'an unknown constant',
      'consts: [{A: 1}]\nsteps:\n  - run: echo ${consts.B}',
      'steps[0].run: unknown constant consts.B (defined: A)',
    ],
    [
      'consts as a mapping',
      'consts: {A: 1}\nsteps:\n  - run: echo',
      'consts: must be a list of single-entry mappings (NAME: value)',
    ],
    [
      'a constant of two names',
      'consts: [{A: 1, B: 2}]\nsteps:\n  - run: echo',
      'consts[0]: must be a mapping of exactly one name to its value',
    ],
    [
      'a constant defined twice',
      'consts: [{A: 1}, {A: 2}]\nsteps:\n  - run: echo',
      'consts[1].A: constant "A" is defined more than once',
    ],
    [
      'a constant that is not literal',
      'consts: [{A: [1]}]\nsteps:\n  - run: echo',
      'consts[0].A: must be a literal string, number or boolean',
    ],
    [
      "a constant's bad name",
      'consts: [{_A: 1}]\nsteps:\n  - run: echo',
      'consts[0]._A: is not a valid constant name (a letter, then letters, digits and _)',
    ],
  ])('refuses %s', (_name, yaml, want) => {
    expect(errorsOf(yaml)).toEqual([want]);
  });
});

describe('step defaults in a 2.x file', () => {
  it('apply to a step that does not write the key, and add their env and preconditions first', () => {
    const dag = load(
      'defaults: {timeout_sec: 9, env: {A: "1"}}\nsteps:\n  - {name: a, run: echo}\n  - {name: b, run: echo, timeout_sec: 2, env: [B=2]}\n  - echo c',
    ).dag;
    expect(dag.steps.map((s) => [s.timeoutSec, s.env.map((v) => v.name)])).toEqual([
      [9, ['A']],
      [2, ['A', 'B']],
      [9, ['A']],
    ]);
  });

  it('refuses a key that is not a step default', () => {
    expect(errorsOf('defaults: {timeout_sec: 1, command: echo}\nsteps:\n  - run: echo')).toEqual([
      'defaults.command: is not a step default (defaults takes continue_on, retry_policy, repeat_policy, timeout_sec, mail_on_error, signal_on_stop, env, preconditions)',
    ]);
  });
});

describe('typed params', () => {
  it('are a typed list even in a file with no other 2.x key', () => {
    const params = load('params:\n  - {name: N, type: integer, default: 3}\nsteps: [echo]').dag.params;
    expect(params.entries).toEqual([{ name: 'N', value: '3', positional: false }]);
    expect(params.schema).toMatchObject({
      properties: { N: { type: 'integer', default: 3 } },
      additionalProperties: false,
    });
  });

  it('start a run with the eval, evaluated per run, and keep the default in the schema to fall back to', () => {
    const params = load(
      'params:\n  - {name: DAY, type: integer, eval: "`date +%u`", default: 1}\n  - {name: N, default: x}\nsteps: [echo]',
    ).dag.params;
    expect(params.entries).toEqual([
      { name: 'DAY', value: '`date +%u`', positional: false },
      { name: 'N', value: 'x', positional: false },
    ]);
    expect(params.schema).toMatchObject({ properties: { DAY: { type: 'integer', default: 1 } } });
  });

  it('leave a required parameter without a default to the run', () => {
    expect(errorsOf('params:\n  - {name: N, type: integer, required: true}\nsteps: [echo]')).toEqual([]);
  });

  it('check their defaults against their types', () => {
    expect(errorsOf('params:\n  - {name: N, type: integer, default: many}\nsteps: [echo]')).toEqual([
      'params.N: must be integer',
    ]);
  });

  it.each([
    ['an unknown type', '{name: N, type: date}', 'params[0].type: must be one of string, integer, number, boolean'],
    [
      'an entry without a name',
      '{type: string}',
      'params[1]: must be a mapping with a name (a list of typed params writes each as {name, type, default, ...})',
    ],
    [
      'a field Dagu does not read',
      '{name: N, minLength: 1}',
      'params[0].minLength: is not a typed-param field (known: name, type, required, eval, default, description, enum, minimum, maximum, min_length, max_length, pattern)',
    ],
    ['an eval that is not text', '{name: N, eval: 3}', 'params[0].eval: parameter "N" eval must be a string'],
    ['an empty eval', '{name: N, eval: " "}', 'params[0].eval: parameter "N" eval must not be empty'],
  ])('refuse %s', (_name, entry, want) => {
    const second = entry === '{type: string}' ? `\n  - {name: M}\n  - ${entry}` : `\n  - ${entry}`;
    expect(errorsOf(`params:${second}\nsteps: [echo]`)).toContain(want);
  });
});

describe('labels', () => {
  it.each([
    ['a mapping, in key order', 'labels: {team: Data, env: prod}', ['env=prod', 'team=data']],
    ['a comma-separated string', 'labels: "daily, team = data"', ['daily', 'team=data']],
    ['a space-separated string of pairs', 'labels: "team=data env=prod"', ['team=data', 'env=prod']],
    ['a list of strings and mappings', 'labels: [daily, {team: data}]', ['daily', 'team=data']],
    ['tags, their older name, when labels is not written', 'tags: {team: data}\ntimeout_sec: 1', ['team=data']],
    ['labels over tags', 'labels: [a]\ntags: [b]', ['a']],
  ])("are the DAG's tags, from %s", (_name, yaml, tags) => {
    const loaded = load(`${yaml}\nsteps:\n  - run: echo`);
    expect(loaded.errors).toEqual([]);
    expect(loaded.dag.tags).toEqual(tags);
  });

  it('refuses a label whose value is not a scalar', () => {
    expect(errorsOf('labels: {team: [a]}\nsteps:\n  - run: echo')).toEqual([
      'labels.team: must be a string, number or boolean',
    ]);
  });
});

describe('negated preconditions', () => {
  it('are read from a 2.x file (negate marks a file 2.x)', () => {
    const step = load(
      'steps:\n  - {name: s, command: echo, preconditions: [{condition: "$A", expected: x, negate: true}, {command: "test -f f", negate: false}]}',
    ).dag.steps[0];
    expect(step?.preconditions).toEqual([{ condition: '$A', expected: 'x', negate: true }, { condition: 'test -f f' }]);
  });
});
