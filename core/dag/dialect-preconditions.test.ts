import { describe, expect, it } from 'vitest';
import { formatIssue } from './issues.ts';
import { loadDag } from './load.ts';

const load = (yaml: string): ReturnType<typeof loadDag> => loadDag(yaml, { fileName: 'example' });
const errorsOf = (yaml: string): string[] => load(yaml).errors.map(formatIssue);

describe("2.x preconditions' eval", () => {
  it('is read as the 1.x condition that runs its backticks before comparing, on a step and on the DAG', () => {
    const { dag, errors } = load(
      'preconditions:\n  - {eval: "`date +%u`", expected: "re:[1-5]"}\nsteps:\n' +
        '  - {name: s, run: echo, preconditions: [{eval: "$(cat f)${X}", expected: ok, negate: true}]}\n',
    );
    expect(errors).toEqual([]);
    expect(dag.preconditions).toEqual([{ condition: '`date +%u`', expected: 're:[1-5]' }]);
    expect(dag.steps[0]?.preconditions).toEqual([{ condition: '$(cat f)${X}', expected: 'ok', negate: true }]);
  });

  it.each([
    [
      'eval beside condition',
      '[{eval: x, condition: y, expected: z}]',
      'steps[0].preconditions[0]: only one of condition or eval is allowed',
    ],
    ['eval without expected', '[{eval: x}]', 'steps[0].preconditions[0]: expected is required when eval is set'],
    ['an empty eval', '[{eval: " ", expected: z}]', 'steps[0].preconditions[0].eval: eval must be a non-empty string'],
    [
      'a condition with a backtick compared with expected',
      '[{condition: "`date`", expected: z, negate: false}]',
      'steps[0].preconditions[0].condition: Dagu 2.x compares a condition with expected as written, without running its backtick command; write it as eval to run the command',
    ],
  ])('refuses %s, in Dagu’s words where Dagu has them', (_name, conditions, want) => {
    expect(errorsOf(`steps:\n  - {name: s, run: echo, preconditions: ${conditions}}\n`)).toContain(want);
  });

  it('leaves a 2.x condition without expected a command, backticks and all', () => {
    const { dag, errors } = load(
      'steps:\n  - {name: s, run: echo, preconditions: [{condition: "test `id -u` = 0"}]}\n',
    );
    expect(errors).toEqual([]);
    expect(dag.steps[0]?.preconditions).toEqual([{ condition: 'test `id -u` = 0' }]);
  });
});
