import { describe, expect, it } from 'vitest';
import { loadDag } from '../../core/dag/index.ts';
import type { DagRunStatus, RunNode } from '../../core/resources/schemas.ts';
import { runOutputs } from './run-outputs.ts';

const dag = loadDag(
  `
handler_on:
  exit:
    run: cat build.json
    stdout: {outputs: {decode: json}}
steps:
  - id: build
    run: cat build.json
    output:
      TAG: {from: stdout, select: .tag}
  - id: plain
    run: echo hi
    output: GREETING
  - id: declared
    run: echo x
    outputs: [{name: SIZE}]
  - id: both
    run: cat build.json
    outputs: [{name: SIZE}]
    stdout: {outputs: {decode: json}}
  - id: later
    run: cat build.json
    output:
      TAG: {from: stdout, select: .tag}
`,
  { fileName: 'outs' },
);

const node = (name: string, fields: Partial<RunNode>): RunNode => ({
  name,
  status: 4,
  statusLabel: 'succeeded',
  ...fields,
});

describe("a v1 run's outputs", () => {
  it('reads a DAG whose steps pick, capture and declare outputs', () => {
    expect(dag.errors).toEqual([]);
  });

  const cases: [string, DagRunStatus, Record<string, string>][] = [
    ['a run without records has none', {}, {}],
    [
      "a step's picked values are run outputs, as its captured output is",
      { nodes: [node('build', { stepOutputs: { TAG: '1.4' } }), node('plain', { outputs: { GREETING: 'hi' } })] },
      { TAG: '1.4', GREETING: 'hi' },
    ],
    [
      'declared outputs are not run outputs, nor are the declared values of a step that also picks',
      { nodes: [node('declared', { stepOutputs: { SIZE: '3' } }), node('both', { stepOutputs: { SIZE: '4' } })] },
      {},
    ],
    [
      "a later step's value of a name wins",
      { nodes: [node('build', { stepOutputs: { TAG: '1.4' } }), node('later', { stepOutputs: { TAG: '2.0' } })] },
      { TAG: '2.0' },
    ],
    [
      "a handler's picked values come after the steps'",
      {
        nodes: [node('plain', { outputs: { GREETING: 'hi' } })],
        onExit: node('onExit', { stepOutputs: { done: 'true' } }),
      },
      { GREETING: 'hi', done: 'true' },
    ],
    [
      'a record of a step the definition does not have counts only its captured output',
      { nodes: [node('gone', { stepOutputs: { A: '1' }, outputs: { B: '2' } })] },
      { B: '2' },
    ],
  ];
  it.each(cases)('%s', (_name, status, expected) => {
    expect(runOutputs(status, dag.dag)).toEqual(expected);
  });

  it('counts only captured outputs when the definition is not known', () => {
    const status = { nodes: [node('build', { stepOutputs: { TAG: '1.4' }, outputs: { X: 'y' } })] };
    expect(runOutputs(status, undefined)).toEqual({ X: 'y' });
  });
});
