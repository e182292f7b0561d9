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
withOperatorNamespace('paths', (made) => ({ ns, operator } = made));

describe('a parallel step read with indexed paths', () => {
  it('gives later steps the results and outputs of each item by index, in commands and in scripts', async () => {
    const yaml = [
      'steps:',
      '  - name: fan',
      '    call: greet',
      '    parallel: [north, south]',
      '    params: "WHERE=${ITEM}"',
      '    output: RESULTS',
      '  - name: one-line',
      '    command: echo "${RESULTS.results[1].status} ${RESULTS.outputs[0].GREETING}"',
      '  - name: multi-line',
      '    command: |',
      "      echo 'first: ${RESULTS.results[0].params}'",
      '      echo "second: ${RESULTS.outputs[1].GREETING} of ${RESULTS.summary.total}"',
      '---',
      'name: greet',
      'params: "WHERE=nowhere"',
      'steps:',
      '  - {name: say, command: echo "hello $WHERE", output: GREETING}',
    ].join('\n');
    await givenDag(ns, 'paths', yaml);
    await whenRun(ns, 'paths-run', 'paths');
    const done = await finishedRun(ns, 'paths-run', 90_000);
    expect(stepStates(done)).toEqual({ fan: 'succeeded', 'one-line': 'succeeded', 'multi-line': 'succeeded' });
    expect(await stepLog(operator, done, 'one-line')).toBe('succeeded hello north\n');
    expect(await stepLog(operator, done, 'multi-line')).toBe('first: {"WHERE":"north"}\nsecond: hello south of 2\n');
  });
});
