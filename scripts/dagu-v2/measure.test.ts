import { describe, expect, it } from 'vitest';
import { loadDag } from '../../core/dag/index.ts';
import { differences, fromDagu, fromKubedag, scriptCommands } from './compare.ts';
import { blockName, isCorpusMarkdown, isCorpusYaml, yamlBlocks } from './corpus.ts';
import { groupCounts, refusalKind } from './measure-groups.ts';

describe('the corpus', () => {
  it.each([
    ['conformance/spec002_schema/testdata/minimal_valid.yaml', true],
    ['examples/embedded/a.yml', true],
    ['internal/testdata/cli/x.yaml', true],
    ['charts/dagu/values.yaml', false],
    ['.github/workflows/ci.yaml', false],
    ['conformance/spec002_schema/README.md', false],
  ])('takes %s as a DAG file: %s', (path, taken) => {
    expect(isCorpusYaml(path)).toBe(taken);
  });

  it.each([
    ['README.md', true],
    ['SCHEMA_MIGRATION.md', true],
    ['specs/013-step-run.md', true],
    ['skills/dagu/references/steptypes.md', true],
    ['ui/README.md', false],
    ['CONTRIBUTING.md', false],
  ])('reads the yaml blocks of %s: %s', (path, taken) => {
    expect(isCorpusMarkdown(path)).toBe(taken);
  });

  it('cuts out yaml and yml blocks, indented ones without their indent, and nothing else', () => {
    const markdown = [
      '# t',
      '```yaml',
      'steps:',
      '  - run: a',
      '```',
      '```json',
      '{}',
      '```',
      '- item:',
      '  ```yml',
      '  steps: [b]',
      '  ```',
    ].join('\n');
    expect(yamlBlocks(markdown)).toEqual(['steps:\n  - run: a\n', 'steps: [b]\n']);
  });

  it('names a block within the 40 characters of a DAG name', () => {
    expect(blockName('specs/013-step-run.md', 3)).toBe('013-step-run_b3');
    expect(blockName('skills/dagu/references/a-very-long-file-name-about-steps.md', 12).length).toBeLessThanOrEqual(40);
  });
});

describe('the comparison', () => {
  it.each([
    ['(\na\n) || exit $?\n(\nb c\n) || exit $?\n', ['a', 'b c']],
    ['(\na\n) || exit $?\n', undefined],
    ['echo hi\n', undefined],
  ])('reads the commands back from the script %j', (script, commands) => {
    expect(scriptCommands(script)).toEqual(commands);
  });

  const daguDag = {
    steps: [
      {
        name: 'a',
        commands: [{ command: 'echo', args: ['hi'], cmdWithArgs: 'echo hi' }],
        executorConfig: { type: '' },
      },
      {
        name: 'b',
        depends: ['a'],
        commands: [{ cmdWithArgs: 'x' }, { cmdWithArgs: 'y' }],
        executorConfig: { type: 'command' },
      },
    ],
    handlerOn: { abort: { name: 'onAbort' } },
    paramDefs: [{ name: 'N', default: 3 }],
    schedule: [{ expression: '0 1 * * *' }],
  };
  const text = [
    'params:',
    '  - N: 3',
    'schedule: "0 1 * * *"',
    'handler_on:',
    '  abort:',
    '    run: echo bye',
    'steps:',
    '  - id: a',
    '    run: echo hi',
    '  - id: b',
    '    depends: [a]',
    '    run: [x, y]',
  ].join('\n');

  it('finds no difference where both read the same DAG', () => {
    const load = loadDag(text, { fileName: 'same' });
    expect(load.errors).toEqual([]);
    expect(differences(fromDagu(daguDag), fromKubedag(load.dag))).toEqual([]);
  });

  it('names each differing field once, with both values', () => {
    const load = loadDag(text.replace('run: [x, y]', 'run: [x, z]').replace('N: 3', 'N: 4'), { fileName: 'other' });
    expect(differences(fromDagu(daguDag), fromKubedag(load.dag))).toEqual([
      { field: 'steps[].runs', dagu: ['x', 'y'], kubedag: ['x', 'z'] },
      { field: 'params', dagu: ['N=3'], kubedag: ['N=4'] },
    ]);
  });

  it('counts a missing step once, as steps.length', () => {
    const load = loadDag('steps:\n  - run: echo hi\n', { fileName: 'one' });
    expect(differences(fromDagu(daguDag), fromKubedag(load.dag)).map((d) => d.field)).toEqual([
      'steps.length',
      'steps[].name',
      'handlers',
      'params',
      'schedule',
    ]);
  });
});

describe('the groups', () => {
  it.each([
    ['Dagu 2.x feature tools is not supported: Kubedag runs no LLM agents', 'deliberate'],
    ['Dagu 2.x feature postgres.* actions is not supported: Kubedag runs no database client', 'deliberate'],
    ['a DAG needs at least one step', 'other'],
  ])('%s is a %s refusal', (message, kind) => {
    expect(refusalKind(message)).toBe(kind);
  });

  it('counts a file once per message, names made generic, biggest group first', () => {
    const groups = groupCounts(
      [
        { source: 'f1', keys: ['unknown step "a"', 'unknown step "b"'] },
        { source: 'f2', keys: ['unknown step "c"', 'bad'] },
        { source: 'f3', keys: ['bad'] },
        { source: 'f4', keys: ['alone'] },
      ],
      1,
    );
    expect(groups).toEqual([
      { key: 'bad', files: 2, samples: ['f2'] },
      { key: 'unknown step "…"', files: 2, samples: ['f1'] },
      { key: 'alone', files: 1, samples: ['f4'] },
    ]);
  });
});
