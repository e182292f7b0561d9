import { describe, expect, it } from 'vitest';
import { formatIssue } from './issues.ts';
import { loadDag } from './load.ts';

function load(steps: string) {
  return loadDag(`steps:\n${steps}`, { fileName: 'f' });
}

const errorsOf = (steps: string): string[] => load(steps).errors.map(formatIssue);

describe('foreach key and collect', () => {
  it('hands key and collect to the operator with the item references as the body params', () => {
    const loaded = load(
      [
        '  - id: each',
        '    foreach:',
        '      items: [{slug: one}]',
        '      as: episode',
        '      key: ${foreach.episode.slug}-${foreach.index}',
        '      steps:',
        '        - {id: show, run: "echo ${foreach.key}", outputs: [{name: text}]}',
        '      collect:',
        '        text: ${steps.show.outputs.text}',
        '        who: ${foreach.episode.slug} as ${foreach.key}',
      ].join('\n'),
    );
    expect(loaded.errors).toEqual([]);
    expect(loaded.dag.steps[0]?.parallel).toMatchObject({
      key: '${FOREACH_ITEM.slug}-${FOREACH_INDEX}',
      collect: { text: '${steps.show.outputs.text}', who: '${FOREACH_ITEM.slug} as ${FOREACH_KEY}' },
    });
    const body = loaded.localDags.find((local) => local.name === 'each-foreach');
    expect(body?.dag.steps[0]?.args).toEqual(['${FOREACH_KEY}']);
  });

  it('reads ${foreach.key} as the index when no key is given', () => {
    const loaded = load('  - id: each\n    foreach: {items: [a], steps: [{run: "echo ${foreach.key}"}]}');
    expect(loaded.errors).toEqual([]);
    expect(loaded.dag.steps[0]?.parallel?.key).toBeUndefined();
    expect(loaded.localDags[0]?.dag.steps[0]?.args).toEqual(['${FOREACH_INDEX}']);
  });

  const refusals = [
    {
      name: 'a key that is no string',
      foreach: '{items: [a], key: 3, steps: [{run: echo}]}',
      want: ['steps[0].foreach.key: foreach.key must be a non-empty string'],
    },
    {
      name: 'a key with a backtick command, which only a Pod could run',
      foreach: '{items: [a], key: "`date`", steps: [{run: echo}]}',
      want: [
        'steps[0].foreach.key: Dagu 2.x feature foreach.key with a backtick command is not supported: the key is computed in the operator, which runs no user code; compute it in the step, or in an earlier step whose output the items carry',
      ],
    },
    {
      name: 'a collect that is no mapping',
      foreach: '{items: [a], steps: [{run: echo}], collect: [x]}',
      want: ['steps[0].foreach.collect: foreach.collect must be a mapping of output names to expressions'],
    },
    {
      name: 'a collect name that is no identifier',
      foreach: '{items: [a], steps: [{run: echo}], collect: {1x: v}}',
      want: ['steps[0].foreach.collect["1x"]: foreach.collect name must match ^[A-Za-z][A-Za-z0-9_]*$'],
    },
    {
      name: 'a collect value that is no string',
      foreach: '{items: [a], steps: [{run: echo}], collect: {v: 1}}',
      want: ['steps[0].foreach.collect.v: foreach.collect.v must be a string'],
    },
    {
      name: 'a collect value with a backtick command',
      foreach: '{items: [a], steps: [{run: echo}], collect: {v: "`cat x`"}}',
      want: [
        'steps[0].foreach.collect.v: Dagu 2.x feature foreach.collect with a backtick command is not supported: collect expressions are evaluated in the operator, which runs no user code; publish the value as an output of a body step and collect ${steps.<id>.outputs.<name>}',
      ],
    },
  ];
  it.each(refusals)('refuses $name', ({ foreach, want }) => {
    expect(errorsOf(`  - {id: e, foreach: ${foreach}}`)).toEqual(want);
  });
});
