import { describe, expect, it } from 'vitest';
import { failedStep, failureHref, type RunLike } from './failures.ts';

const node = (name: string, status: number, error = ''): RunLike['nodes'][number] => ({
  step: { name },
  status,
  error,
});
const run = (nodes: RunLike['nodes'], handlers: Partial<RunLike> = {}): RunLike => ({
  name: 'etl',
  dagRunId: 'r1',
  nodes,
  ...handlers,
});

describe('the failure of a failed run', () => {
  it.each<[string, RunLike, ReturnType<typeof failedStep>]>([
    [
      'is the first step that failed',
      run([node('extract', 4), node('load', 2, 'exit status 3'), node('report', 2)]),
      { step: 'load', error: 'exit status 3' },
    ],
    [
      'is a failed handler when no step failed',
      run([node('extract', 4)], { onFailure: null, onExit: node('onExit', 2) }),
      { step: 'onExit', error: '' },
    ],
    ['is nowhere in particular when nothing failed (a stop, a precondition)', run([node('extract', 3)]), undefined],
  ])('%s', (_, details, want) => {
    expect(failedStep(details)).toEqual(want);
  });

  it.each<[string, ReturnType<typeof failedStep>, string]>([
    [
      'links to the failed step’s stderr',
      { step: 'load data', error: '' },
      '/runs/etl/r1/steps/load%20data/log?stream=stderr',
    ],
    ['links to the run when no step failed', undefined, '/runs/etl/r1'],
  ])('%s', (_, failed, want) => {
    expect(failureHref({ name: 'etl', dagRunId: 'r1' }, failed)).toBe(want);
  });
});
