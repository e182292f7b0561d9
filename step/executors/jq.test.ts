import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ExecutorSpec } from '../../core/runner/spec.ts';
import { compileFailure, runJq } from './jq.ts';
import { captureIO, temporaryDir } from '../../test/step-io.ts';

async function run(
  spec: Partial<ExecutorSpec>,
  env: Record<string, string> = {},
): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const io = captureIO({ env });
  const code = await runJq({ type: 'jq', config: {}, ...spec }, io).catch(
    (error: unknown) => `error: ${(error as Error).message}`,
  );
  return { code, stdout: io.out(), stderr: io.err() };
}

const ORDERS = JSON.stringify({
  orders: [
    { id: 'a-1', total: 12.5, tags: ['new'] },
    { id: 'b-2', total: 1000000, tags: [] },
  ],
  note: '<b>&',
});

describe('the jq executor', () => {
  it.each([
    {
      name: 'a field comes out as indented JSON',
      command: '.orders[0]',
      raw: false,
      want: '{\n    "id": "a-1",\n    "tags": [\n        "new"\n    ],\n    "total": 12.5\n}\n',
    },
    {
      name: 'object keys are sorted and HTML characters escaped, as Go writes JSON',
      command: '{z: .note, a: 1}',
      raw: false,
      want: '{\n    "a": 1,\n    "z": "\\u003cb\\u003e\\u0026"\n}\n',
    },
    {
      name: 'each result of an iteration is its own document',
      command: '.orders[] | .id',
      raw: false,
      want: '"a-1"\n"b-2"\n',
    },
    { name: 'raw strings come out bare', command: '.orders[] | .id', raw: true, want: 'a-1\nb-2\n' },
    {
      name: 'raw numbers come out as Go prints a float64',
      command: '.orders[] | .total',
      raw: true,
      want: '12.5\n1e+06\n',
    },
    {
      name: 'raw arrays and objects come out as compact JSON',
      command: '.orders[0].tags, {n: 1}',
      raw: true,
      want: '["new"]\n{"n":1}\n',
    },
    {
      name: 'raw null is an empty line and booleans are words',
      command: 'null, true, false',
      raw: true,
      want: '\ntrue\nfalse\n',
    },
    { name: 'an empty array is written as []', command: '.orders[1].tags', raw: false, want: '[]\n' },
    {
      name: 'a filter over several lines, with functions and variables, works',
      command: 'def big: .total > 100;\n[.orders[] | select(big) | .id] as $ids\n| {count: ($ids | length), ids: $ids}',
      raw: false,
      want: '{\n    "count": 1,\n    "ids": [\n        "b-2"\n    ]\n}\n',
    },
    {
      name: 'map, add and string interpolation work',
      command: '"total: \\(.orders | map(.total) | add)"',
      raw: true,
      want: 'total: 1000012.5\n',
    },
  ])('$name', async ({ command, raw, want }) => {
    expect(await run({ command, script: ORDERS, config: { raw } })).toEqual({ code: 0, stdout: want, stderr: '' });
  });

  it('without a filter pretty-prints the input, as Dagu runs an empty query as the identity', async () => {
    expect(await run({ script: '{"id": "sample", "10": {"b": 42}}' })).toEqual({
      code: 0,
      stdout: '{\n    "10": {\n        "b": 42\n    },\n    "id": "sample"\n}\n',
      stderr: '',
    });
    expect((await run({ command: '  ', script: '[1]' })).stdout).toBe('[\n    1\n]\n');
  });

  it('expands variables in the input, and leaves the filter to jq', async () => {
    expect(
      await run(
        { command: '$__loc__.line, .name', script: '{"name": "${WHO}"}', config: { raw: 'true' } },
        { WHO: 'kube' },
      ),
    ).toEqual({ code: 0, stdout: '1\nkube\n', stderr: '' });
  });

  it.each([
    {
      name: 'an error before any result is written after the prefix Dagu uses, and the step succeeds',
      command: '.a.b',
      script: '1',
      stdout: '',
      message: 'Cannot index number with string "a"',
    },
    {
      name: "an error after some results keeps them and still has jq's message",
      command: '.[] | .a.b',
      script: '[{"a": {"b": 1}}, 2]',
      stdout: '1\n',
      message: 'Cannot index number with string "a"',
    },
    {
      name: 'an error value that is not a string is written as JSON',
      command: '1, error({code: 7})',
      script: 'null',
      stdout: '1\n',
      message: '(not a string): {"code":7}',
    },
    {
      name: 'a function that is not defined is a run error, as gojq finds it only when running',
      command: 'foo(1)',
      script: '{}',
      stdout: '',
      message: 'foo/1 is not defined at <top-level>, line 1',
    },
  ])('$name', async ({ command, script, stdout, message }) => {
    expect(await run({ command, script })).toEqual({ code: 0, stdout, stderr: `failed to run jq query: ${message}\n` });
  });

  it.each([
    {
      name: "a filter with a syntax error fails the step with jq's message",
      spec: { command: '.a | (', script: '{}' },
      want: /^error: command: the jq filter does not compile: syntax error, unexpected end of file \(Unix shell quoting issues\?\) at <top-level>, line 1$/,
    },
    {
      name: 'input that is not JSON fails the step',
      spec: { command: '.', script: '{a: 1}' },
      want: /^error: script: the jq input must be one JSON value: /,
    },
    {
      name: 'a missing input fails the step',
      spec: { command: '.' },
      want: /^error: script: the jq input must be one JSON value: /,
    },
  ])('$name', async ({ spec, want }) => {
    expect((await run(spec)).code).toMatch(want);
  });

  it('reads the input from the file named by input, relative to the working directory, path expanded', async () => {
    const dir = await temporaryDir('jq-input');
    try {
      await writeFile(join(dir.path, 'orders.json'), ORDERS);
      await writeFile(join(dir.path, 'broken.json'), '{"a": 1');
      const io = captureIO({ env: { NAME: 'orders' }, cwd: dir.path });
      const code = await runJq(
        { type: 'jq', config: { input: '${NAME}.json', raw: true }, command: '.orders[].id' },
        io,
      );
      expect({ code, out: io.out() }).toEqual({ code: 0, out: 'a-1\nb-2\n' });
      const failures = await Promise.all(
        ['absent.json', 'broken.json'].map((input) =>
          runJq({ type: 'jq', config: { input }, command: '.' }, captureIO({ cwd: dir.path })).catch(
            (error: unknown) => (error as Error).message,
          ),
        ),
      );
      expect(failures).toEqual([
        expect.stringMatching(/^input: cannot read the JSON input file .*\/absent\.json: ENOENT/),
        expect.stringMatching(/^input: .*\/broken\.json must hold one JSON value: /),
      ]);
    } finally {
      await dir.remove();
    }
  });

  it('leaves the process exit status as it found it', async () => {
    await run({ command: '.a | (', script: '{}' });
    expect(process.exitCode).toBeUndefined();
  });
});

describe("sorting jq's compile errors as gojq would meet them", () => {
  it.each([
    {
      name: 'a syntax error is one',
      stderr: 'jq: error: syntax error, unexpected end of file at <top-level>, line 1:\n.a | (\njq: 1 compile error',
      want: { syntax: true, message: 'syntax error, unexpected end of file at <top-level>, line 1' },
    },
    {
      name: "an unterminated if reports both of jq's lines",
      stderr:
        "jq: error: syntax error, unexpected end of file at <top-level>, line 1:\nif . then 1\njq: error: Possibly unterminated 'if' statement at <top-level>, line 1:\nif . then 1\njq: 2 compile errors",
      want: {
        syntax: true,
        message:
          "syntax error, unexpected end of file at <top-level>, line 1; Possibly unterminated 'if' statement at <top-level>, line 1",
      },
    },
    {
      name: 'a bad escape in a string is one',
      stderr:
        'jq: error: Invalid escape at line 1, column 4 (while parsing \'"\\q"\') at <top-level>, line 1:\n"\\q"\njq: 1 compile error',
      want: {
        syntax: true,
        message: 'Invalid escape at line 1, column 4 (while parsing \'"\\q"\') at <top-level>, line 1',
      },
    },
    {
      name: 'an undefined function is not one',
      stderr: 'jq: error: foo/1 is not defined at <top-level>, line 1:\nfoo(1)\njq: 1 compile error',
      want: { syntax: false, message: 'foo/1 is not defined at <top-level>, line 1' },
    },
    {
      name: 'an undefined variable is not one',
      stderr: 'jq: error: $x is not defined at <top-level>, line 1:\n$x\njq: 1 compile error',
      want: { syntax: false, message: '$x is not defined at <top-level>, line 1' },
    },
    {
      name: 'an undefined name beside a syntax error still fails as one',
      stderr:
        'jq: error: $x is not defined at <top-level>, line 1:\njq: error: syntax error, unexpected INVALID_CHARACTER at <top-level>, line 1:\njq: 2 compile errors',
      want: {
        syntax: true,
        message:
          '$x is not defined at <top-level>, line 1; syntax error, unexpected INVALID_CHARACTER at <top-level>, line 1',
      },
    },
    {
      name: "text not in jq's form counts as one, kept whole",
      stderr: 'something else\n',
      want: { syntax: true, message: 'something else' },
    },
  ])('$name', ({ stderr, want }) => {
    expect(compileFailure(stderr)).toEqual(want);
  });
});
