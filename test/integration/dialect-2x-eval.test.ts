/**
 * Dagu 2.x's two evaluations that run user commands (issue 26), on the local control plane:
 * a typed param's `eval` and a precondition's `eval`. Both run in the run's prepare Pod, never
 * in the operator; these prove the values reach the steps, a failed eval falls back to the
 * default, and a value its type refuses fails the run before any step.
 */
import { describe, expect, it } from 'vitest';
import {
  finishedRun,
  givenDag,
  stepLog,
  stepStates,
  whenRun,
  type RunningOperator,
  withOperatorNamespace,
} from './operator-support.ts';

let ns = '';
let operator: RunningOperator;
withOperatorNamespace('dialect-eval', (made) => ({ ns, operator } = made));

describe("a Dagu 2.x DAG's eval", () => {
  it('gives params their evaluated values, falls back to the default, and decides preconditions by evaluated values', async () => {
    await givenDag(
      ns,
      'evals',
      `
params:
  - {name: YEAR, type: integer, eval: "\`echo 2026\`"}
  - {name: TAG, eval: "v-\`printf one\`", default: none}
  - {name: SAFE, eval: "\`exit 4\`", default: fallback}
preconditions:
  - {eval: "\`echo \${YEAR}\`", expected: "re:^20[0-9]{2}$"}
steps:
  - name: show
    run: echo "\${params.YEAR} \${params.TAG} \${params.SAFE}"
  - name: odd
    run: echo odd
    depends: [show]
    preconditions: [{eval: "\`expr \${YEAR} % 2\`", expected: "1"}]
`,
    );
    await whenRun(ns, 'evals-1', 'evals');
    const done = await finishedRun(ns, 'evals-1', 120_000);
    expect([done.status?.statusLabel, done.status?.error, stepStates(done)]).toEqual([
      'succeeded',
      undefined,
      { show: 'succeeded', odd: 'skipped' },
    ]);
    expect(await stepLog(operator, done, 'show')).toBe('2026 v-one fallback\n');
    // A value the run is given is not evaluated.
    await whenRun(ns, 'evals-2', 'evals', { params: 'TAG=given' });
    const given = await finishedRun(ns, 'evals-2', 120_000);
    expect(await stepLog(operator, given, 'show')).toBe('2026 given fallback\n');
  });

  it('fails the run before any step when an evaluated value breaks its type', async () => {
    await givenDag(
      ns,
      'bad-eval',
      `
params:
  - {name: COUNT, type: integer, eval: "\`echo many\`"}
steps:
  - name: never
    run: echo "\${params.COUNT}"
`,
    );
    await whenRun(ns, 'bad-eval-1', 'bad-eval');
    const done = await finishedRun(ns, 'bad-eval-1', 120_000);
    expect([done.status?.statusLabel, done.status?.error, stepStates(done)]).toEqual([
      'failed',
      'evaluated params: params.COUNT: must be integer',
      {}, // no step was ever started
    ]);
  });
});
