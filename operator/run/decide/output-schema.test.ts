import { describe, expect, it } from 'vitest';
import { plainStep } from '../../../core/dag/index.ts';
import { StepStatus } from '../../../core/resources/status.ts';
import { judgeAttempt, type AttemptContext } from './attempt-verdict.ts';
import { outputSchemaError } from './output-schema.ts';

const schema = {
  type: 'object',
  required: ['arch'],
  properties: { arch: { type: 'string' }, cores: { type: 'integer', minimum: 1 } },
};
const limit = 1024 * 1024;

describe("Dagu 2.x's output_schema, judged on a succeeded attempt's stdout", () => {
  it.each([
    ['an object it accepts', '{"arch": "amd64", "cores": 4}\n', limit, undefined],
    ['an object it accepts, among blank lines', '\n  {"arch": "arm64"}  \n\n', limit, undefined],
    [
      'nothing',
      '  \n',
      limit,
      'failed to validate output_schema: output_schema requires stdout to contain a JSON value matching the schema',
    ],
    ['text', 'arch=amd64\n', limit, 'failed to validate output_schema: failed to decode stdout JSON for output_schema'],
    [
      'two JSON values',
      '{"arch": "a"}\n{"arch": "b"}\n',
      limit,
      'failed to validate output_schema: failed to decode stdout JSON for output_schema',
    ],
    [
      'a missing key',
      '{"cores": 2}',
      limit,
      'failed to validate output_schema: stdout JSON does not match output_schema',
    ],
    [
      'a value out of range',
      '{"arch": "x", "cores": 0}',
      limit,
      'failed to validate output_schema: stdout JSON does not match output_schema',
    ],
    [
      'an array',
      '[{"arch": "x"}]',
      limit,
      'failed to validate output_schema: stdout JSON does not match output_schema',
    ],
    [
      'more than max_output_size',
      '{"arch": "amd64"}',
      10,
      'failed to validate output_schema: output exceeded maximum size limit of 10 bytes',
    ],
  ])('%s', (_name, stdout, max, want) => {
    expect(outputSchemaError(schema, stdout, max)).toBe(want);
  });
});

describe('judging an attempt of a step with output_schema', () => {
  const context: AttemptContext = { retryCount: 0, doneCount: 0, maxOutputSize: limit, resolveCount: Number };
  const step = plainStep('meta', { id: 'meta', outputSchema: schema });

  it('succeeds when stdout passes, fails (as its retry policy sees it) when it does not', () => {
    const ok = { exitCode: 0, preconditionUnmet: false, stdout: '{"arch": "amd64"}' };
    expect(judgeAttempt(step, ok, context)).toEqual({ kind: 'done', status: StepStatus.Succeeded, continued: false });
    expect(judgeAttempt(step, { ...ok, stdout: '{}' }, context)).toEqual({
      kind: 'done',
      status: StepStatus.Failed,
      continued: false,
      error: 'failed to validate output_schema: stdout JSON does not match output_schema',
    });
  });

  it('leaves a failed attempt to its exit code', () => {
    expect(judgeAttempt(step, { exitCode: 3, preconditionUnmet: false, stdout: 'oops' }, context)).toMatchObject({
      status: StepStatus.Failed,
      error: 'exit code 3',
    });
  });
});
