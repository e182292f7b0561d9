import { describe, expect, it } from 'vitest';
import { collected, foreachOutput, keyedItems } from './foreach-keys.ts';

const item = (index: number, value: string) => ({ FOREACH_INDEX: String(index), FOREACH_ITEM: value });

describe('foreach.key', () => {
  it('names each item from a field of the item, the index and a variable, passed on as FOREACH_KEY', () => {
    const items = [item(0, '{"slug":"one"}'), item(1, '{"slug":"two"}')];
    expect(keyedItems('${ENV}-${FOREACH_ITEM.slug}-${FOREACH_INDEX}', items, { ENV: 'prod' }, {})).toEqual({
      items: [
        { ...items[0], FOREACH_KEY: 'prod-one-0' },
        { ...items[1], FOREACH_KEY: 'prod-two-1' },
      ],
    });
  });

  it.each([
    [
      'two items with the same key',
      [item(0, '{"slug":"dup"}'), item(1, '{"slug":"dup"}')],
      'duplicate foreach item key "dup" at item 1; first seen at item 0',
    ],
    ['an empty key', [item(0, '{"slug":""}')], 'foreach.key resolved to an empty string for item 0'],
    [
      'a key whose reference nothing resolves',
      [item(0, 'plain')],
      'foreach.key resolved with unresolved reference for item 0: ${FOREACH_ITEM.slug}',
    ],
  ])('fails the step before any item starts on %s', (_, items, error) => {
    expect(keyedItems('${FOREACH_ITEM.slug}', items, {}, {})).toEqual({ error });
  });
});

describe('foreach.collect', () => {
  const nodes = [
    { name: 'summarize', outputs: { BODY_RESULT: 'https://example.com/one' }, stepOutputs: { markdown: '# one' } },
    { name: 'other' },
  ];

  it("reads a body step's declared output, its output variable, ${id.output}, the item and the DAG's variables", () => {
    const collect = {
      declared: '${steps.summarize.outputs.markdown}',
      variable: '${BODY_RESULT}',
      value: '${summarize.output}',
      key: '${FOREACH_KEY}: ${FOREACH_ITEM.slug} in ${STAGE}',
    };
    const params = { ...item(0, '{"slug":"one"}'), FOREACH_KEY: 'k1' };
    expect(collected(collect, params, nodes, { STAGE: 'prod' })).toEqual({
      outputs: {
        declared: '# one',
        variable: 'https://example.com/one',
        value: 'https://example.com/one',
        key: 'k1: one in prod',
      },
    });
  });

  it('fails the item when a value still has a reference nothing resolves', () => {
    expect(collected({ v: '${steps.gone.outputs.x}' }, item(0, 'a'), nodes)).toEqual({
      error: 'foreach.collect.v resolved with unresolved reference: ${steps.gone.outputs.x}',
    });
  });
});

describe("the step's output in Dagu's shape", () => {
  it('lists every item by index with its key and status, and the collected values of the succeeded ones', () => {
    const items = [
      { ...item(0, 'a'), FOREACH_KEY: 'ka' },
      { ...item(1, 'b'), FOREACH_KEY: 'kb' },
      { ...item(2, 'c'), FOREACH_KEY: 'kc' },
    ];
    const parallel = { items, maxConcurrent: 2, key: '${FOREACH_ITEM}', collect: { v: '${OUT}' } };
    const runs = [
      { index: 2, status: 'succeeded', nodes: [{ name: 's', outputs: { OUT: 'C' } }] },
      { index: 0, status: 'succeeded', nodes: [{ name: 's', outputs: { OUT: 'A' } }] },
      { index: 1, status: 'failed', nodes: [] },
    ];
    const got = foreachOutput(parallel, items, runs);
    expect(got.failed).toBe(1);
    expect(JSON.parse(got.output)).toEqual({
      summary: { total: 3, succeeded: 2, failed: 1 },
      items: [
        { index: 0, key: 'ka', status: 'succeeded', outputs: { v: 'A' } },
        { index: 1, key: 'kb', status: 'failed', error: 'item run ended failed' },
        { index: 2, key: 'kc', status: 'succeeded', outputs: { v: 'C' } },
      ],
      outputs: [{ v: 'A' }, { v: 'C' }],
    });
  });

  it('counts an item whose collect fails as failed, and keys an item by its index without foreach.key', () => {
    const items = [item(0, 'a')];
    const got = foreachOutput({ items, maxConcurrent: 1, collect: { v: '${NOPE}' } }, items, [
      { index: 0, status: 'succeeded', nodes: [] },
    ]);
    expect(JSON.parse(got.output)).toMatchObject({
      summary: { total: 1, succeeded: 0, failed: 1 },
      items: [
        {
          index: 0,
          key: '0',
          status: 'failed',
          error: 'foreach.collect.v resolved with unresolved reference: ${NOPE}',
        },
      ],
      outputs: [],
    });
  });
});
