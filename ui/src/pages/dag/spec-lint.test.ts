import { describe, expect, it } from 'vitest';
import { parseSpec, schemaProblems, serverProblems, shownProblems, type Problem } from './spec-lint.ts';
import { splitMessage } from './yaml-paths.ts';

/** What a person sees of a problem: its line, the underlined text, the message. */
const seen = (text: string, problems: readonly Problem[]): { line: number; under: string; message: string }[] =>
  problems.map((p) => ({ line: p.line, under: text.slice(p.from, p.to), message: p.message }));

describe('schemaProblems: the DAG JSON Schema in the browser, placed on lines', () => {
  const cases: { name: string; spec: string; want: { line: number; under: string; message: string }[] }[] = [
    { name: 'a valid spec has none', spec: 'steps:\n  - name: hello\n    command: echo hello\n', want: [] },
    {
      name: 'a misspelt key is underlined, with the key it probably meant',
      spec: 'steps:\n  - name: hello\n    comand: echo hello\n',
      want: [{ line: 3, under: 'comand', message: 'steps[0].comand: unknown key; did you mean "command"?' }],
    },
    {
      name: 'a value of the wrong type names the types that would do',
      spec: 'schedule: 5\nsteps:\n  - echo hi\n',
      want: [{ line: 1, under: '5', message: 'schedule: must be a string, a list or a mapping, not 5' }],
    },
    {
      name: 'a value outside an enum lists the choices',
      spec: 'type: dag\nsteps:\n  - echo hi\n',
      want: [{ line: 1, under: 'dag', message: 'type: must be one of "chain", "graph", not "dag"' }],
    },
    {
      name: 'a key in another case is accepted, as the server makes it canonical',
      spec: 'Steps:\n  - echo hi\n',
      want: [],
    },
    {
      name: 'a key with nothing after it means unset, as on the server',
      spec: 'description:\nsteps:\n  - echo hi\n',
      want: [],
    },
    {
      name: 'a problem in a later document carries the documents prefix and its own line',
      spec: 'steps:\n  - echo hi\n---\nname: sub\nsteps:\n  - name: b\n    bogus: 1\n',
      want: [{ line: 7, under: 'bogus', message: 'documents[1].steps[0].bogus: unknown key' }],
    },
    {
      name: 'a file in Dagu 2.x keys has none',
      spec: 'working_dir: /tmp\nhandler_on:\n  abort:\n    run: echo bye\nsteps:\n  - id: a\n    run: echo hi\n    retry_policy:\n      limit: 2\n      interval_sec: 1\n',
      want: [],
    },
    {
      name: 'a file that mixes the dialects gets the server’s error at the first key of the other, once',
      spec: 'timeout_sec: 5\nsteps:\n  - command: echo hi\n    workingDir: /tmp\n',
      want: [
        {
          line: 4,
          under: 'workingDir',
          message:
            'steps[0].workingDir: "workingDir" is a Dagu 1.x key, but this file is written in Dagu 2.x keys (the first is "timeout_sec" at timeout_sec); a file uses one dialect; in Dagu 2.x it is written "working_dir"',
        },
      ],
    },
    {
      name: 'a misspelt key of a 2.x file is hinted with the 2.x key',
      spec: 'timeout_sec: 5\nsteps:\n  - run: echo hi\n    retry_polcy:\n      limit: 1\n',
      want: [
        { line: 4, under: 'retry_polcy', message: 'steps[0].retry_polcy: unknown key; did you mean "retry_policy"?' },
      ],
    },
    {
      name: 'a 1.x key a 2.x file has no use for is unknown there (executor in a run: step)',
      spec: 'steps:\n  - run: echo hi && ls\n    executr: shell\n',
      want: [{ line: 3, under: 'executr', message: 'steps[0].executr: unknown key' }],
    },
    {
      name: 'broken YAML is reported once, where the parser first stumbled, and nothing else',
      spec: 'steps:\n  - name: a\n   command: [x\n',
      want: [{ line: 3, under: 'command: [x', message: 'invalid YAML: Sequence item without - indicator' }],
    },
  ];
  it.each(cases)('$name', ({ spec, want }) => {
    expect(seen(spec, schemaProblems(parseSpec(spec)))).toEqual(want);
  });
});

describe('serverProblems: the validate endpoint’s messages, placed on lines', () => {
  const spec =
    'steps:\n  - name: a\n    command: echo\n    depends: b\n    retryPolicy:\n      limit: 2\n  - name: a\n    command: echo\n---\nname: sub\nsteps:\n  - name: c\n    bogus: 1\n';
  const cases: { name: string; error: string; want: { line: number; under: string } }[] = [
    {
      name: 'a path to a scalar underlines the value',
      error: 'steps[0].depends: unknown step "b"',
      want: { line: 4, under: 'b' },
    },
    {
      name: 'a path to a missing key underlines the key it would hang under',
      error: 'steps[0].retryPolicy.intervalSec: is required',
      want: { line: 5, under: 'retryPolicy' },
    },
    {
      name: 'a path to a list item underlines its first line',
      error: 'steps[1]: needs a command or a script',
      want: { line: 7, under: 'name: a' },
    },
    {
      name: 'a duplicate name underlines the second one',
      error: 'steps[1].name: "a" is also the name of steps[0]; step names must be unique',
      want: { line: 7, under: 'a' },
    },
    {
      name: 'an unknown key in a later document underlines that key',
      error: 'documents[1].steps[0].bogus: unknown key; known keys are name, id',
      want: { line: 13, under: 'bogus' },
    },
    {
      name: 'a YAML error is placed at the line and column it names',
      error: 'invalid YAML at line 3, column 5: deficient indentation',
      want: { line: 3, under: 'c' },
    },
    {
      name: 'a message about the whole file marks the first line',
      error: 'a DAG needs at least one step',
      want: { line: 1, under: 'steps:' },
    },
  ];
  it.each(cases)('$name', ({ error, want }) => {
    expect(seen(spec, serverProblems(parseSpec(spec), [error]))).toEqual([{ ...want, message: error }]);
  });
});

describe('splitMessage', () => {
  const cases: { name: string; message: string; want: { path: (string | number)[]; text: string } }[] = [
    {
      name: 'a dotted path with indexes',
      message: 'steps[2].retryPolicy.limit: must be an integer',
      want: { path: ['steps', 2, 'retryPolicy', 'limit'], text: 'must be an integer' },
    },
    { name: 'a quoted key', message: 'env["A.B"]: is odd', want: { path: ['env', 'A.B'], text: 'is odd' } },
    {
      name: 'no path at all',
      message: 'invalid YAML at line 2, column 1: bad',
      want: { path: [], text: 'invalid YAML at line 2, column 1: bad' },
    },
    {
      name: 'a word without the colon is no path',
      message: 'steps are missing',
      want: { path: [], text: 'steps are missing' },
    },
  ];
  it.each(cases)('$name', ({ message, want }) => {
    expect(splitMessage(message)).toEqual(want);
  });
});

describe('shownProblems', () => {
  const at = (line: number, source: Problem['source']): Problem => ({
    from: line * 10,
    to: line * 10 + 1,
    line,
    message: `${source} ${String(line)}`,
    source,
  });
  const cases: { name: string; local: Problem[]; server: Problem[] | undefined; want: string[] }[] = [
    {
      name: 'before the server answers, the browser’s problems',
      local: [at(2, 'schema'), at(1, 'schema')],
      server: undefined,
      want: ['schema 1', 'schema 2'],
    },
    {
      name: 'once it answered for this text, the server’s alone',
      local: [at(1, 'schema')],
      server: [at(3, 'server')],
      want: ['server 3'],
    },
    { name: 'a server that found nothing clears the browser’s', local: [at(1, 'schema')], server: [], want: [] },
  ];
  it.each(cases)('$name', ({ local, server, want }) => {
    expect(shownProblems(local, server).map((p) => p.message)).toEqual(want);
  });
});
