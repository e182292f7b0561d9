import { describe, expect, it } from 'vitest';
import { loadDag, type Step } from '../../../core/dag/index.ts';
import { distinctByParams, fanOut, splitItems, type ItemChild } from './parallel.ts';

/** A parallel step; maxConcurrent 0 leaves the limit out (no limit). */
const step = (maxConcurrent: number): Step => {
  const limit = maxConcurrent === 0 ? '' : `, maxConcurrent: ${String(maxConcurrent)}`;
  return loadDag(`steps:\n  - {name: fan, call: child, parallel: {items: [a, b, c]${limit}}}`, { fileName: 'p' }).dag
    .steps[0] as Step;
};
const done = (item: number, status: string, outputs: Record<string, string> = {}): ItemChild => ({
  item,
  name: `c${String(item)}`,
  report: {
    exitCode: status === 'failed' ? 1 : 0,
    preconditionUnmet: false,
    stdout: JSON.stringify({ status, outputs }),
    childStatus: status,
  },
});
const running = (item: number): ItemChild => ({ item, name: `c${String(item)}` });
const items = ['a', 'b', 'c'];

describe('fanOut', () => {
  it('starts at most maxConcurrent children', () => {
    expect(fanOut(step(2), items, [], String).start).toEqual([0, 1]);
    expect(fanOut(step(2), items, [running(0), done(1, 'succeeded')], String).start).toEqual([2]);
    expect(fanOut(step(0), items, [], String).start).toEqual([0, 1, 2]);
  });

  it('waits until every child has ended', () => {
    expect(
      fanOut(step(0), items, [done(0, 'succeeded'), running(1), done(2, 'succeeded')], String).report,
    ).toBeUndefined();
  });

  it('succeeds with a summary, results and the outputs of successful children', () => {
    const out = fanOut(
      step(0),
      items,
      [done(0, 'succeeded', { X: '1' }), done(1, 'succeeded', { X: '2' }), done(2, 'succeeded')],
      String,
    );
    expect(out.report?.childStatus).toBe('succeeded');
    expect(JSON.parse(out.report?.stdout ?? '')).toMatchObject({
      summary: { total: 3, succeeded: 3, failed: 0 },
      outputs: [{ X: '1' }, { X: '2' }, {}],
    });
    expect(out.subRuns.map((r) => r.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  });

  it('fails when any child failed, and is partial when any child was', () => {
    expect(
      fanOut(step(0), items, [done(0, 'succeeded'), done(1, 'failed'), done(2, 'partially_succeeded')], String).report,
    ).toMatchObject({ exitCode: 1, childStatus: 'failed' });
    expect(
      fanOut(step(0), items, [done(0, 'succeeded'), done(1, 'partially_succeeded'), done(2, 'succeeded')], String)
        .report,
    ).toMatchObject({ exitCode: 0, childStatus: 'partially_succeeded' });
  });
});

describe('splitItems', () => {
  const cases = [
    { name: 'reads a JSON array', value: '["a", {"x": 1}]', want: ['a', { x: 1 }] },
    { name: 'splits lines', value: 'a\nb\n\nc\n', want: ['a', 'b', 'c'] },
    { name: 'splits commas', value: 'a, b,c', want: ['a', 'b', 'c'] },
    { name: 'splits words', value: 'a b  c', want: ['a', 'b', 'c'] },
    { name: 'gives nothing for blank text', value: '  ', want: [] },
  ];
  it.each(cases)('$name', ({ value, want }) => {
    expect(splitItems(value)).toEqual(want);
  });
});

describe('distinctByParams', () => {
  const asText = (item: unknown): string => (typeof item === 'string' ? item : JSON.stringify(item));
  const cases = [
    {
      name: 'items with equal params run once, the first keeping its place',
      items: ['eu', 'us', 'eu', 'ap', 'us'],
      paramsOf: asText,
      expected: ['eu', 'us', 'ap'],
    },
    {
      name: 'different items that render the same params run once',
      items: [
        { r: 'eu', n: 1 },
        { r: 'eu', n: 2 },
      ],
      paramsOf: (item: unknown) => `REGION=${(item as { r: string }).r}`,
      expected: [{ r: 'eu', n: 1 }],
    },
    { name: 'distinct params keep every item in order', items: [3, 1, 2], paramsOf: asText, expected: [3, 1, 2] },
    { name: 'no items stay no items', items: [], paramsOf: asText, expected: [] },
  ];
  it.each(cases)('$name', ({ items, paramsOf, expected }) => {
    expect(distinctByParams(items, paramsOf)).toEqual(expected);
  });
});

describe('fanOut of a Dagu 2.x foreach with collect', () => {
  const foreach = loadDag(
    'steps:\n  - id: each\n    foreach: {items: [a, b], steps: [{id: s, run: echo}], collect: {v: "${OUT} in ${STAGE}"}}',
    { fileName: 'f' },
  ).dag.steps[0] as Step;
  const params = (i: number) => ({ FOREACH_INDEX: String(i), FOREACH_ITEM: i === 0 ? 'a' : 'b' });
  const child = (item: number, out: string): ItemChild => ({
    item,
    name: `c${String(item)}`,
    report: {
      exitCode: 0,
      preconditionUnmet: false,
      stdout: JSON.stringify({ status: 'succeeded' }),
      childStatus: 'succeeded',
      childNodes: [{ name: 's', outputs: { OUT: out } }],
    },
  });

  it("writes Dagu's shape from the children's steps and the DAG's variables", () => {
    const out = fanOut(foreach, [params(0), params(1)], [child(1, 'B'), child(0, 'A')], String, { STAGE: 'prod' });
    expect(out.report?.childStatus).toBe('succeeded');
    expect(JSON.parse(out.report?.stdout ?? '')).toEqual({
      summary: { total: 2, succeeded: 2, failed: 0 },
      items: [
        { index: 0, key: '0', status: 'succeeded', outputs: { v: 'A in prod' } },
        { index: 1, key: '1', status: 'succeeded', outputs: { v: 'B in prod' } },
      ],
      outputs: [{ v: 'A in prod' }, { v: 'B in prod' }],
    });
  });

  it('succeeds at once with empty lists when there are no items', () => {
    expect(JSON.parse(fanOut(foreach, [], [], String).report?.stdout ?? '')).toEqual({
      summary: { total: 0, succeeded: 0, failed: 0 },
      items: [],
      outputs: [],
    });
  });
});
