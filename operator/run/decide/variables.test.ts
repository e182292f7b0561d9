import { describe, expect, it } from 'vitest';
import { loadDag, type Step } from '../../../core/dag/index.ts';
import { withResolvedScript } from './variables.ts';

const RESULTS = JSON.stringify({
  summary: { total: 2, succeeded: 2, failed: 0 },
  results: [
    {
      name: 'child',
      dagRunId: 'c1',
      params: '{"WHERE":"north"}',
      outputs: { GREETING: 'hello north' },
      status: 'succeeded',
    },
    {
      name: 'child',
      dagRunId: 'c2',
      params: '{"WHERE":"south"}',
      outputs: { GREETING: 'hello south' },
      status: 'succeeded',
    },
  ],
  outputs: [{ GREETING: 'hello north' }, { GREETING: 'hello south' }],
});

const scriptStep = (script: string): Step => {
  const load = loadDag(`steps:\n  - id: report\n    script: ${JSON.stringify(script)}`, { fileName: 'vars' });
  expect(load.errors).toEqual([]);
  return load.dag.steps[0] as Step;
};

describe('withResolvedScript', () => {
  const cases: { name: string; script: string; want: string }[] = [
    {
      name: 'resolves an indexed path into a parallel step output',
      script: 'echo ${RESULTS.results[1].params}',
      want: 'echo {"WHERE":"south"}',
    },
    {
      name: 'resolves a path through an index and a key',
      script: 'echo ${RESULTS.outputs[0].GREETING}',
      want: 'echo hello north',
    },
    {
      name: 'resolves the bare form of an indexed path',
      script: 'echo $RESULTS.results[0].status',
      want: 'echo succeeded',
    },
    {
      name: 'quotes a quoted reference as JSON text',
      script: 'echo "${RESULTS.results[0].outputs}"',
      want: 'echo "{\\"GREETING\\":\\"hello north\\"}"',
    },
    { name: 'resolves a step reference to its log file', script: 'cat ${report.stdout}', want: 'cat /logs/report.out' },
    { name: 'leaves plain variables for the shell', script: 'echo $RESULTS ${HOME}', want: 'echo $RESULTS ${HOME}' },
    {
      name: 'leaves an index past the end unresolved',
      script: 'echo ${RESULTS.results[5].status}',
      want: 'echo ${RESULTS.results[5].status}',
    },
  ];
  it.each(cases)('$name', ({ script, want }) => {
    const step = withResolvedScript(
      scriptStep(script),
      { RESULTS },
      { report: { stdout: '/logs/report.out', stderr: '/logs/report.err', exitCode: 0 } },
    );
    expect(step.script).toBe(want);
  });

  it('returns a step without a script unchanged', () => {
    const step = loadDag('steps: [echo hi]', { fileName: 'vars' }).dag.steps[0] as Step;
    expect(withResolvedScript(step, { RESULTS }, {})).toBe(step);
  });
});
