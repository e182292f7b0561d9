import { describe, expect, it } from 'vitest';
import { formatIssue } from './issues.ts';
import { loadDag } from './load.ts';

const errorsOf = (yaml: string): string[] => loadDag(yaml, { fileName: 'logs' }).errors.map(formatIssue);
const MERGED =
  "Dagu 2.x feature log_output: merged is not supported: Kubedag keeps a step's stdout and stderr apart in its log store; merge them in the command (2>&1) instead";

describe("Dagu 2.x's log_output", () => {
  it.each([
    ['separate', 'separate'],
    ['any letter case, with spaces', '" Separate "'],
    ['empty (the default)', '""'],
    ['null (not set)', 'null'],
  ])('reads %s as the layout Kubedag has, on the DAG and on a step', (_name, value) => {
    const got = loadDag(`log_output: ${value}\nsteps:\n  - {name: a, run: echo a, log_output: ${value}}\n`, {
      fileName: 'logs',
    });
    expect(got.errors.map(formatIssue)).toEqual([]);
    expect(got.dag).toEqual(loadDag('steps:\n  - {name: a, run: echo a}\n', { fileName: 'logs' }).dag);
  });

  it.each([
    ['merged on the DAG', 'log_output: merged\nsteps:\n  - run: echo a', `log_output: ${MERGED}`],
    ['merged on a step', 'steps:\n  - {run: echo a, log_output: MERGED}', `steps[0].log_output: ${MERGED}`],
    [
      'merged on a handler',
      'handler_on:\n  exit: {run: echo x, log_output: merged}\nsteps:\n  - run: echo a',
      `handler_on.exit.log_output: ${MERGED}`,
    ],
    [
      'another word',
      'steps:\n  - {run: echo a, log_output: both}',
      `steps[0].log_output: invalid log_output value: "both" (must be 'separate' or 'merged')`,
    ],
    [
      'a number',
      'steps:\n  - {run: echo a, log_output: 1}',
      'steps[0].log_output: log_output must be a string, got a number',
    ],
    [
      'a list',
      'log_output: [merged]\nsteps:\n  - run: echo a',
      'log_output: log_output must be a string, got a sequence',
    ],
  ])('refuses %s', (_name, yaml, want) => {
    expect(errorsOf(yaml)).toEqual([want]);
  });
});
