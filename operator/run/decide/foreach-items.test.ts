import { describe, expect, it } from 'vitest';
import { plainStep } from '../../../core/dag/index.ts';
import { foreachItems } from './children.ts';

const step = (items: string) =>
  plainStep('each', { call: 'each-foreach', parallel: { items, maxConcurrent: 2, foreach: true } });

describe('foreach items written as an expression', () => {
  it("reads a previous step's declared output as a JSON array, each item with its index, equal items kept", () => {
    const got = foreachItems(
      step('${steps.list.outputs.files}'),
      {},
      {
        list: { outputs: { files: '["a.csv", {"n": 2}, "a.csv"]' } },
      },
    );
    expect(got).toEqual({
      items: [
        { FOREACH_INDEX: '0', FOREACH_ITEM: 'a.csv' },
        { FOREACH_INDEX: '1', FOREACH_ITEM: '{"n":2}' },
        { FOREACH_INDEX: '2', FOREACH_ITEM: 'a.csv' },
      ],
    });
  });

  it('reads a variable (a param or an output variable) too', () => {
    expect(foreachItems(step('${REGIONS}'), { REGIONS: '["eu", "us"]' }, {})).toEqual({
      items: [
        { FOREACH_INDEX: '0', FOREACH_ITEM: 'eu' },
        { FOREACH_INDEX: '1', FOREACH_ITEM: 'us' },
      ],
    });
  });

  it.each([
    ['text that is no JSON', 'a b c', 'foreach.items string must resolve to a JSON array: "a b c"'],
    ['a JSON object', '{"a": 1}', 'foreach.items string must resolve to a JSON array: "{\\"a\\": 1}"'],
    [
      'a reference nothing resolves',
      '${steps.gone.outputs.x}',
      'foreach.items string must resolve to a JSON array: "${steps.gone.outputs.x}"',
    ],
  ])('fails the step on %s, as Dagu does', (_name, expression, error) => {
    expect(foreachItems(step(expression), {}, {})).toEqual({ error });
  });

  it('fails the step past the 1000 items Dagu allows', () => {
    const many = JSON.stringify(Array.from({ length: 1001 }, (_, i) => i));
    expect(foreachItems(step('${MANY}'), { MANY: many }, {})).toEqual({
      error: 'foreach expansion produced 1001 items; maximum is 1000',
    });
  });
});
