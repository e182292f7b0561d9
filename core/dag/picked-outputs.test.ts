import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDag } from './load.ts';
import { selectPath } from './picked-outputs.ts';

const loaded = (yaml: string) => loadDag(yaml, { fileName: 'a' });
const errorsOf = (yaml: string): string[] => loaded(yaml).errors.map((e) => `${e.path}: ${e.message}`);

describe('Dagu 2.x picked outputs at load', () => {
  it('reads the fixture into the model: entries with Dagu defaults, and the keys of stdout as JSON', () => {
    const text = readFileSync(join(import.meta.dirname, '../../test/fixtures/dialect/picked-outputs.2x.yaml'), 'utf8');
    const { dag, errors } = loadDag(text, { fileName: 'picked-outputs' });
    expect(errors).toEqual([]);
    expect(dag.steps[0]?.output).toBeUndefined();
    expect(dag.steps[0]?.pickedOutputs).toEqual({
      entries: [
        { name: 'REPORT', from: 'stdout', decode: 'text' },
        { name: 'TAG', from: 'stdout', decode: 'json', select: ['image', 'tag'] },
        { name: 'FIRST', from: 'stdout', decode: 'json', select: ['sizes', 0] },
        { name: 'WARNINGS', from: 'stderr', decode: 'yaml', select: ['warnings'] },
        { name: 'CHANNEL', value: 'stable' },
        { name: 'RELEASE', from: 'file', path: 'release.json', decode: 'json', select: ['version'] },
      ],
    });
    expect(dag.steps[1]?.stdout).toBeUndefined();
    expect(dag.steps[1]?.pickedOutputs).toEqual({ decode: 'json' });
  });

  it.each([
    ['a field name', 'outputs: version', { field: 'version', decode: 'text' }],
    ['a field of decoded YAML', 'outputs: {field: cfg, decode: yaml}', { field: 'cfg', decode: 'yaml' }],
    ['a select without decode (JSON)', 'outputs: {select: .data}', { decode: 'json', select: ['data'] }],
    [
      'fields',
      'outputs: {fields: {id: {select: .id}, raw: {from: stdout}, fixed: 3}}',
      {
        entries: [
          { name: 'id', from: 'stdout', decode: 'json', select: ['id'] },
          { name: 'raw', from: 'stdout', decode: 'text' },
          { name: 'fixed', value: 3 },
        ],
      },
    ],
  ])('reads stdout.outputs as %s', (_name, outputs, want) => {
    const { dag, errors } = loaded(`steps:\n  - run: echo\n    stdout: {${outputs}}`);
    expect(errors).toEqual([]);
    expect(dag.steps[0]?.pickedOutputs).toEqual(want);
  });

  it('takes a mapping without reserved keys as a literal object, as Dagu does', () => {
    const { dag } = loaded('steps:\n  - run: echo\n    output: {META: {arch: amd64}}');
    expect(dag.steps[0]?.pickedOutputs).toEqual({ entries: [{ name: 'META', value: { arch: 'amd64' } }] });
  });

  it('marks a file as 2.x: object-form output beside 1.x keys is a mix', () => {
    expect(errorsOf('steps:\n  - command: echo\n    continueOn: {failure: true}\n    output: {A: {value: 1}}')).toEqual(
      [
        'steps[0].output: "output" is a Dagu 2.x key, but this file is written in Dagu 1.x keys (the first is "continueOn" at steps[0].continueOn); a file uses one dialect',
      ],
    );
  });

  it.each([
    [
      'value beside from',
      'output: {A: {value: 1, from: stdout}}',
      'steps[0].output.A: value and from cannot be used together',
    ],
    [
      'neither value nor from',
      'output: {A: {decode: json}}',
      'steps[0].output.A: entry must specify either a literal value or from',
    ],
    [
      'decode beside value',
      'output: {A: {value: 1, decode: json}}',
      'steps[0].output.A: path, decode, and select are only valid with from',
    ],
    [
      'an unknown source',
      'output: {A: {from: env}}',
      'steps[0].output.A.from: from must be one of "stdout", "stderr", or "file"',
    ],
    [
      'an unknown decode',
      'output: {A: {from: stdout, decode: xml}}',
      'steps[0].output.A.decode: decode must be one of "text", "json", or "yaml"',
    ],
    [
      'select on text',
      'output: {A: {from: stdout, decode: text, select: .a}}',
      'steps[0].output.A.select: select requires decode to be "json" or "yaml"',
    ],
    ['an unknown key', 'output: {A: {from: stdout, pick: x}}', 'steps[0].output.A.pick: unknown field "pick"'],
    [
      'fields beside field',
      'stdout: {outputs: {field: a, fields: {b: 1}}}',
      'steps[0].stdout.outputs: fields cannot be used with field, decode, or select',
    ],
    [
      'text without a field',
      'stdout: {outputs: {decode: text}}',
      'steps[0].stdout.outputs: field is required when stdout outputs use text',
    ],
    [
      'fields from stderr',
      'stdout: {outputs: {fields: {a: {from: stderr}}}}',
      'steps[0].stdout.outputs.fields.a.from: from must be "stdout"',
    ],
    [
      'another key in stdout',
      'stdout: {outputs: a, keep: true}',
      'steps[0].stdout: stdout object supports only artifact and outputs',
    ],
    [
      'a jq program as select',
      'output: {A: {from: stdout, select: ".items | length"}}',
      'steps[0].output.A.select: Dagu 2.x feature select other than a path such as .a.b[0] (a jq program would run in the operator) is not supported: values are picked in the operator, which runs no user code; select a path such as .a.b[0], or run jq in the step and publish its stdout',
    ],
    ['a file without a path', 'output: {A: {from: file}}', 'steps[0].output.A: path is required when from is file'],
    [
      'a file with a blank path',
      "output: {A: {from: file, path: '  '}}",
      'steps[0].output.A: path is required when from is file',
    ],
    ['a path that is no string', 'output: {A: {from: file, path: 3}}', 'steps[0].output.A.path: path must be a string'],
    [
      'a path on stdout',
      'output: {A: {from: stdout, path: out.json}}',
      'steps[0].output.A.path: path is only valid when from is file',
    ],
    [
      'select on a file read as text',
      'output: {A: {from: file, path: a, decode: text, select: .a}}',
      'steps[0].output.A.select: select requires decode to be "json" or "yaml"',
    ],
    [
      'a file in stdout.outputs.fields',
      'stdout: {outputs: {fields: {a: {from: file, path: x}}}}',
      'steps[0].stdout.outputs.fields.a.from: from must be "stdout"',
    ],
  ])("refuses %s with Dagu's words", (_name, keys, want) => {
    expect(errorsOf(`steps:\n  - run: echo\n    ${keys}`)).toEqual([want]);
  });

  it.each([
    ['text, as written', '{from: file, path: out/version.txt}', { path: 'out/version.txt', decode: 'text' }],
    [
      'JSON with a select, path trimmed',
      "{from: ' file ', path: ' ${OUT}/r.json ', select: .image.tag}",
      { path: '${OUT}/r.json', decode: 'json', select: ['image', 'tag'] },
    ],
    ['YAML', '{from: file, path: /tmp/c.yaml, decode: yaml}', { path: '/tmp/c.yaml', decode: 'yaml' }],
  ])('reads an entry from a file: %s', (_name, entry, want) => {
    const { dag, errors } = loaded(`steps:\n  - run: echo\n    output: {A: ${entry}}`);
    expect(errors).toEqual([]);
    expect(dag.steps[0]?.pickedOutputs).toEqual({ entries: [{ name: 'A', from: 'file', ...want }] });
  });

  it.each([
    [
      'a step of another type',
      'steps:\n  - type: http\n    command: GET https://example.com\n    output: {A: {from: file, path: a}}',
      "steps[0].output: Dagu 2.x feature output from: file on a step of type http is not supported: the step Pod's runner reads the file back after the command, in its own filesystem, and this command runs elsewhere; print the value and publish it with output: {NAME: {from: stdout}}",
    ],
    [
      'a docker step that names a container',
      'steps:\n  - {type: docker, with: {container_name: db}, command: echo, output: {A: {from: file, path: a}}}',
      "steps[0].output: Dagu 2.x feature output from: file on a docker step that names a container (containerName: its command runs in that container, through exec) is not supported: the step Pod's runner reads the file back after the command, in its own filesystem, and this command runs elsewhere; print the value and publish it with output: {NAME: {from: stdout}}",
    ],
    [
      'a step in the DAG-level container',
      'container: {image: alpine}\nsteps:\n  - run: echo\n    output: {A: {from: file, path: a}}',
      "steps[0].output: Dagu 2.x feature output from: file on a step that runs in the DAG-level container is not supported: the step Pod's runner reads the file back after the command, in its own filesystem, and this command runs elsewhere (the DAG-level container); print the value and publish it with output: {NAME: {from: stdout}}",
    ],
  ])('refuses a value from a file on %s by name: the runner cannot read it there', (_name, yaml, want) => {
    expect(errorsOf(yaml)).toEqual([want]);
  });

  it('refuses picked outputs on a sub-DAG step by name', () => {
    expect(errorsOf('steps:\n  - action: dag.run\n    with: {dag: child}\n    output: {A: {from: stdout}}')).toEqual([
      "steps[0].output: Dagu 2.x feature object-form output on a sub-DAG step is not supported: a sub-DAG step has no stdout in Kubedag (its work is the child run); publish the value from the child DAG's steps",
    ]);
  });
});

describe('selectPath', () => {
  it.each([
    ['.', []],
    ['.a.b', ['a', 'b']],
    ['.items[0].name', ['items', 0, 'name']],
    ['.[-1]', [-1]],
    ['."a b".c', ['a b', 'c']],
    ['.["x"][2]', ['x', 2]],
  ])('reads %s as a path', (text, want) => {
    expect(selectPath(text)).toEqual(want);
  });

  it.each(['a', '.a | length', '.[]', '.a[]', 'map(.a)', '..', '.a,.b', '[0]'])(
    'refuses %s, which is more than a path',
    (text) => {
      expect(selectPath(text)).toBeUndefined();
    },
  );
});
