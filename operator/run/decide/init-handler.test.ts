import { describe, expect, it } from 'vitest';
import { simulate, type Script } from '../../../test/builders/run-engine.ts';

const INIT = 'handler_on:\n  init: {run: setup}\n  abort: {run: aborted}\n  exit: {run: cleanup}\n';

describe('the init handler (Dagu 2.x handler_on.init)', () => {
  const cases: {
    name: string;
    yaml: string;
    script?: Script;
    started: string[];
    run: string;
    onInit?: string;
    steps: Record<string, string>;
  }[] = [
    {
      name: 'runs before the first step, then the steps and the exit handler run',
      yaml: `${INIT}steps:\n  - {name: a, run: echo a}\n  - {name: b, run: echo b}`,
      started: ['onInit#0', 'a#0', 'b#0', 'onExit#0'],
      run: 'succeeded',
      onInit: 'succeeded',
      steps: { a: 'succeeded', b: 'succeeded' },
    },
    {
      name: 'failing, starts no step and cancels the run after the abort and exit handlers',
      yaml: `${INIT}steps:\n  - {name: a, run: echo a}`,
      script: { onInit: { exitCode: 1 } },
      started: ['onInit#0', 'onCancel#0', 'onExit#0'],
      run: 'canceled',
      onInit: 'failed',
      steps: { a: 'not_started' },
    },
    {
      name: 'skipped by its own precondition, lets the steps run',
      yaml: 'handler_on:\n  init: {run: setup, preconditions: [{condition: "a", expected: "b"}]}\nsteps:\n  - {name: a, run: echo a}',
      started: ['a#0'],
      run: 'succeeded',
      onInit: 'skipped',
      steps: { a: 'succeeded' },
    },
    {
      name: 'does not run when a DAG precondition is not met',
      yaml: `preconditions: [{condition: "a", expected: "b"}]\n${INIT}steps:\n  - {name: a, run: echo a}`,
      started: ['onCancel#0', 'onExit#0'],
      run: 'canceled',
      steps: { a: 'not_started' },
    },
  ];
  it.each(cases)('$name', ({ yaml, script, started, run, onInit, steps }) => {
    const result = simulate(yaml, script);
    expect(result.started).toEqual(started);
    expect(result.status.statusLabel).toBe(run);
    expect(result.status.onInit?.statusLabel).toBe(onInit);
    expect(Object.fromEntries((result.status.nodes ?? []).map((n) => [n.name, n.statusLabel]))).toEqual(steps);
  });

  it('says why the run ended when the init handler failed', () => {
    const result = simulate(`${INIT}steps: [{name: a, run: echo a}]`, { onInit: { exitCode: 3 } });
    expect([result.status.endReason, result.status.error]).toEqual([
      'init',
      expect.stringMatching(/^the init handler failed.*; no step was started$/) as string,
    ]);
  });
});
