import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatIssue } from './issues.ts';
import { loadDag } from './load.ts';

function load(steps: string) {
  return loadDag(`steps:\n${steps}`, { fileName: 'f' });
}

const errorsOf = (steps: string): string[] => load(steps).errors.map(formatIssue);

describe('foreach', () => {
  it('gives its body the model of the 1.x local DAG in the fixture pair', () => {
    const read = (dialect: string) =>
      loadDag(readFileSync(join(import.meta.dirname, `../../test/fixtures/dialect/foreach.${dialect}.yaml`), 'utf8'));
    const [oneX, twoX] = [read('1x'), read('2x')];
    expect(twoX.localDags.map((local) => [local.name, local.dag])).toEqual(
      oneX.localDags.map((local) => [local.name, local.dag]),
    );
  });

  it('keeps items written as an expression for the operator, marked as foreach items', () => {
    const loaded = load(
      '  - {id: list, run: echo, outputs: [{name: files, type: json}]}\n  - id: each\n    depends: [list]\n    foreach:\n      items: ${steps.list.outputs.files}\n      max_concurrent: 2\n      steps:\n        - run: echo ${foreach.item}',
    );
    expect(loaded.errors).toEqual([]);
    expect(loaded.dag.steps[1]?.call).toBe('each-foreach');
    expect(loaded.dag.steps[1]?.parallel).toEqual({
      items: '${steps.list.outputs.files}',
      maxConcurrent: 2,
      foreach: true,
    });
  });

  it('calls its body, a local DAG named after the step, once per item', () => {
    const loaded = load(
      '  - id: each\n    foreach:\n      items: [a, b]\n      steps:\n        - run: echo ${foreach.item}',
    );
    expect(loaded.errors).toEqual([]);
    const step = loaded.dag.steps[0];
    expect(step?.call).toBe('each-foreach');
    expect(step?.parallel).toEqual({
      items: [
        { FOREACH_INDEX: '0', FOREACH_ITEM: 'a' },
        { FOREACH_INDEX: '1', FOREACH_ITEM: 'b' },
      ],
      maxConcurrent: 10,
    });
    const body = loaded.localDags.find((local) => local.name === 'each-foreach');
    expect(body?.dag.steps.map((s) => [s.command, s.args])).toEqual([['echo', ['${FOREACH_ITEM}']]]);
    expect(body?.document).toMatchObject({ name: 'each-foreach', type: 'graph' });
  });

  it('keeps equal items apart by their index', () => {
    const loaded = load('  - id: each\n    foreach: {items: [a, a], steps: [{run: echo}]}');
    expect(loaded.dag.steps[0]?.parallel?.items).toHaveLength(2);
  });

  it('reads a body that is spelled alike in both dialects as 2.x, so run: is a command', () => {
    const loaded = load('  - id: each\n    foreach: {items: [a], steps: [{run: child}]}');
    const body = loaded.localDags[0];
    expect(body?.dag.steps[0]?.command).toBe('child');
    expect(body?.dag.steps[0]?.call).toBeUndefined();
  });

  it('names the body after the step name when the step has no id', () => {
    const loaded = load('  - name: per file\n    foreach: {items: [a], steps: [{run: echo}]}');
    expect(loaded.dag.steps[0]?.call).toBe('per-file-foreach');
  });

  it('reports a problem of the body at the path the file wrote', () => {
    expect(errorsOf('  - id: each\n    foreach: {items: [a], steps: [{run: echo, timeout_sec: x}]}')).toEqual([
      expect.stringMatching(/^steps\[0\]\.foreach\.steps\[0\]\.timeout_sec: /) as string,
    ]);
  });

  const refusals = [
    {
      name: 'a foreach beside run',
      steps: '  - {id: e, run: echo, foreach: {items: [a], steps: [{run: echo}]}}',
      want: ['steps[0].foreach: foreach cannot be combined with "run" on the same step'],
    },
    {
      name: 'a foreach without items',
      steps: '  - {id: e, foreach: {steps: [{run: echo}]}}',
      want: ['steps[0].foreach.items: foreach.items is required'],
    },
    {
      name: 'a foreach without steps',
      steps: '  - {id: e, foreach: {items: [a], steps: []}}',
      want: ['steps[0].foreach.steps: foreach.steps must be a non-empty list of steps'],
    },
    {
      name: 'a reserved alias',
      steps: '  - {id: e, foreach: {items: [a], as: key, steps: [{run: echo}]}}',
      want: ['steps[0].foreach.as: foreach.as "key" is reserved'],
    },
    {
      name: 'a max_concurrent out of range',
      steps: '  - {id: e, foreach: {items: [a], max_concurrent: 0, steps: [{run: echo}]}}',
      want: ['steps[0].foreach.max_concurrent: max_concurrent must be an integer from 1 through 1000'],
    },
    {
      name: 'an unknown field',
      steps: '  - {id: e, foreach: {items: [a], each: 1, steps: [{run: echo}]}}',
      want: ['steps[0].foreach.each: unknown foreach field "each"'],
    },
    {
      name: 'an empty items expression',
      steps: '  - {id: e, foreach: {items: " ", steps: [{run: echo}]}}',
      want: ['steps[0].foreach.items: foreach.items must not be empty'],
    },
    {
      name: 'a nested foreach',
      steps: '  - {id: e, foreach: {items: [a], steps: [{id: f, foreach: {items: [b], steps: [{run: echo}]}}]}}',
      want: [
        'steps[0].foreach.steps: Dagu 2.x feature foreach inside a foreach body is not supported: a foreach body is one sub-DAG run per item, and Kubedag nests no second fan-out in it; call a sub-DAG from the body whose step has the inner foreach',
      ],
    },
    {
      name: 'an item reference outside a body',
      steps: '  - {id: e, run: "echo ${foreach.item}"}',
      want: [
        'steps[0].command: Dagu 2.x feature ${foreach.…} references outside a foreach body is not supported: ${foreach.…} has a value only in the steps of a foreach body (Dagu leaves it as written elsewhere and reports it as a defect); move the step into foreach.steps',
      ],
    },
  ];
  it.each(refusals)('refuses $name', ({ steps, want }) => {
    expect(errorsOf(steps)).toEqual(want);
  });
});
