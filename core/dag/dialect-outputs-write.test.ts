import { describe, expect, it } from 'vitest';
import { formatIssue } from './issues.ts';
import { loadDag } from './load.ts';

const load = (steps: string) => loadDag(`steps:\n${steps}`, { fileName: 'write' });
const errorsOf = (steps: string): string[] => load(steps).errors.map(formatIssue);

describe("Dagu 2.x's action outputs.write", () => {
  it('runs true and publishes each value as a literal picked output, whatever its type', () => {
    const got = load(
      '  - id: publish\n    action: outputs.write\n    with:\n      values: {messageId: "${ID}", count: 3, meta: {a: [1]}, "from": x}\n',
    );
    expect(got.errors.map(formatIssue)).toEqual([]);
    expect(got.dag.steps[0]?.command).toBe('true');
    expect(got.dag.steps[0]?.pickedOutputs).toEqual({
      entries: [
        { name: 'messageId', value: '${ID}' },
        { name: 'count', value: 3 },
        { name: 'meta', value: { a: [1] } },
        { name: 'from', value: 'x' },
      ],
    });
  });

  it('keeps the step its other keys (depends, id, preconditions)', () => {
    const got = load(
      '  - {id: a, run: echo a}\n  - {id: b, depends: [a], action: outputs.write, with: {values: {X: "1"}}, preconditions: [{condition: "1", expected: "1"}]}\n',
    );
    expect(got.errors.map(formatIssue)).toEqual([]);
    expect([got.dag.steps[1]?.depends, got.dag.steps[1]?.preconditions.length]).toEqual([['a'], 1]);
  });

  const OWN = "Kubedag publishes with.values as the step's output; move these values into with.values";
  it.each([
    ['no with', '{id: a, action: outputs.write}', ['steps[0].with.values: is required']],
    [
      'values not an object',
      '{id: a, action: outputs.write, with: {values: [1]}}',
      ['steps[0].with.values: must be an object'],
    ],
    ['empty values', '{id: a, action: outputs.write, with: {values: {}}}', ['steps[0].with.values: must not be empty']],
    [
      'an empty key',
      '{id: a, action: outputs.write, with: {values: {" ": 1}}}',
      ['steps[0].with.values: contains an empty key'],
    ],
    [
      'another with key',
      '{id: a, action: outputs.write, with: {values: {X: 1}, schema: {}}}',
      ['steps[0].with.schema: outputs.write does not take with.schema (it takes values)'],
    ],
    [
      'an output of its own',
      '{id: a, action: outputs.write, with: {values: {X: 1}}, output: OUT}',
      [`steps[0].output: Dagu 2.x feature output beside action outputs.write is not supported: ${OWN}`],
    ],
    [
      'stdout.outputs of its own',
      '{id: a, action: outputs.write, with: {values: {X: 1}}, stdout: {outputs: {fields: {Y: {}}}}}',
      [`steps[0].stdout: Dagu 2.x feature stdout beside action outputs.write is not supported: ${OWN}`],
    ],
  ])('refuses %s', (_name, step, want) => {
    expect(errorsOf(`  - ${step}\n`)).toEqual(want);
  });
});
