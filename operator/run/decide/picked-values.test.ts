import { describe, expect, it } from 'vitest';
import { plainStep, type PickedOutputs } from '../../../core/dag/index.ts';
import { StepStatus } from '../../../core/resources/status.ts';
import { judgeAttempt, type AttemptContext } from './attempt-verdict.ts';
import { pickValues, selectFrom } from './picked-values.ts';

const streams = { stdout: '{"image": {"tag": "1.4.2"}, "sizes": [3, 5]}\n', stderr: 'warnings: 2\n', variables: {} };
const limit = 1024 * 1024;

describe('picked outputs of a succeeded attempt', () => {
  it.each<[string, PickedOutputs, Record<string, string>]>([
    [
      'text, a JSON path, a YAML value from stderr, a number as JSON',
      {
        entries: [
          { name: 'RAW', from: 'stderr', decode: 'text' },
          { name: 'TAG', from: 'stdout', decode: 'json', select: ['image', 'tag'] },
          { name: 'WARNINGS', from: 'stderr', decode: 'yaml', select: ['warnings'] },
          { name: 'LAST', from: 'stdout', decode: 'json', select: ['sizes', -1] },
          { name: 'IMAGE', from: 'stdout', decode: 'json', select: ['image'] },
        ],
      },
      { RAW: 'warnings: 2', TAG: '1.4.2', WARNINGS: '2', LAST: '5', IMAGE: '{"tag":"1.4.2"}' },
    ],
    [
      'a missing key, null as jq gives it',
      { entries: [{ name: 'X', from: 'stdout', decode: 'json', select: ['nope', 'deeper'] }] },
      { X: 'null' },
    ],
    ['the keys of the decoded object', { decode: 'json' }, { image: '{"tag":"1.4.2"}', sizes: '[3,5]' }],
    [
      'one field of the whole stream',
      { field: 'ALL', decode: 'text' },
      { ALL: '{"image": {"tag": "1.4.2"}, "sizes": [3, 5]}' },
    ],
    ['one field selected', { field: 'SIZES', decode: 'json', select: ['sizes'] }, { SIZES: '[3,5]' }],
  ])('picks %s', (_name, picked, values) => {
    expect(pickValues(picked, streams, limit)).toEqual({ values });
  });

  it('substitutes the variables a literal names, in nested values too', () => {
    const picked: PickedOutputs = { entries: [{ name: 'L', value: { env: '${STAGE}', n: [1, '$STAGE-x'] } }] };
    expect(pickValues(picked, { ...streams, variables: { STAGE: 'prod' } }, limit)).toEqual({
      values: { L: '{"env":"prod","n":[1,"prod-x"]}' },
    });
  });

  it.each<[string, PickedOutputs, string]>([
    [
      'stdout that is not JSON',
      { entries: [{ name: 'A', from: 'stderr', decode: 'json' }] },
      'failed to evaluate structured output: A: failed to decode JSON',
    ],
    [
      'a key into an array',
      { entries: [{ name: 'A', from: 'stdout', decode: 'json', select: ['sizes', 'x'] }] },
      'failed to evaluate structured output: A: failed to resolve select path ".sizes.x"',
    ],
    [
      'a stream that is no object, without a field',
      { decode: 'json', select: ['sizes'] },
      'failed to evaluate stdout outputs: decoded stdout outputs must be an object when field is omitted',
    ],
  ])('fails the step on %s', (_name, picked, error) => {
    expect(pickValues(picked, streams, limit)).toEqual({ error });
  });

  it('decodes YAML holding a masked secret, the mask kept where the secret was', () => {
    const masked = {
      ...streams,
      stdout: 'token: *******\nuser: "a-*******"\n*******: key\nkubedag-masked-secret: 1\n',
    };
    expect(pickValues({ decode: 'yaml' }, masked, limit)).toEqual({
      values: { token: '*******', user: 'a-*******', '*******': 'key', 'kubedag-masked-secret': '1' },
    });
  });

  it('fails the step when the values exceed max_output_size', () => {
    expect(pickValues({ decode: 'json' }, streams, 10)).toEqual({
      error: 'outputs exceeded maximum size limit of 10 bytes',
    });
  });

  it('selects as jq does: null through null, an index past the end null, a key into a string an error', () => {
    expect(selectFrom({ a: null }, ['a', 'b', 0])).toBeNull();
    expect(selectFrom([1], [4])).toBeNull();
    expect(typeof selectFrom('text', ['a'])).toBe('symbol');
  });
});

describe('judging an attempt of a step that picks outputs', () => {
  const context: AttemptContext = { retryCount: 0, doneCount: 0, maxOutputSize: limit, resolveCount: Number };
  const step = plainStep('build', {
    id: 'build',
    pickedOutputs: { entries: [{ name: 'TAG', from: 'stdout', decode: 'json', select: ['image', 'tag'] }] },
  });

  it('publishes the values on success, for ${steps.<id>.outputs.<name>}', () => {
    expect(judgeAttempt(step, { exitCode: 0, preconditionUnmet: false, stdout: streams.stdout }, context)).toEqual({
      kind: 'done',
      status: StepStatus.Succeeded,
      continued: false,
      stepOutputs: { TAG: '1.4.2' },
    });
  });

  it('fails the step when stdout does not decode, and picks nothing from a failed attempt', () => {
    expect(judgeAttempt(step, { exitCode: 0, preconditionUnmet: false, stdout: 'oops' }, context)).toMatchObject({
      status: StepStatus.Failed,
      error: 'failed to evaluate structured output: TAG: failed to decode JSON',
    });
    expect(judgeAttempt(step, { exitCode: 2, preconditionUnmet: false, stdout: 'oops' }, context)).toEqual({
      kind: 'done',
      status: StepStatus.Failed,
      continued: false,
      error: 'exit code 2',
    });
  });

  it("substitutes an earlier step's published output into a literal (outputs.write republishes so), and leaves an unknown one", () => {
    const write = plainStep('publish', {
      id: 'publish',
      pickedOutputs: {
        entries: [
          { name: 'tag', value: '${steps.build.outputs.TAG}' },
          { name: 'meta', value: { at: '${STAGE}/${steps.build.outputs.TAG}', other: '${steps.none.outputs.X}' } },
        ],
      },
    });
    const given = { ...context, variables: { STAGE: 'prod' }, steps: { build: { outputs: { TAG: '1.4.2' } } } };
    expect(judgeAttempt(write, { exitCode: 0, preconditionUnmet: false, stdout: '' }, given)).toMatchObject({
      stepOutputs: { tag: '1.4.2', meta: '{"at":"prod/1.4.2","other":"${steps.none.outputs.X}"}' },
    });
  });

  it('publishes the declared outputs, not the picked ones, when a step has both (as Dagu reads them)', () => {
    const both = { ...step, declaredOutputs: [{ name: 'version', type: 'string' as const }] };
    const report = { exitCode: 0, preconditionUnmet: false, stdout: streams.stdout, outputRecords: 'version=2\n' };
    expect(judgeAttempt(both, report, context)).toMatchObject({ stepOutputs: { version: '2' } });
  });
});
