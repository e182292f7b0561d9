import { describe, expect, it } from 'vitest';
import { attemptKey, runKeyPrefix } from './keys.ts';

const ref = (step: string, dagRunId = 'r1', attempt = 0) => ({
  namespace: 'team-a',
  dagName: 'etl',
  dagRunId,
  step,
  attempt,
});

describe('log keys', () => {
  it.each([
    {
      name: 'a plain step is its run prefix, then step, attempt and stream',
      key: attemptKey(ref('load', 'r1', 2), 'stdout'),
      want: 'team-a/etl/r1/load.2.stdout',
    },
    {
      name: 'a step name with a slash stays one part',
      key: attemptKey(ref('a/b'), 'stderr'),
      want: 'team-a/etl/r1/a%2Fb.0.stderr',
    },
    {
      name: 'a step named .. cannot climb out of its run',
      key: attemptKey(ref('..'), 'stdout'),
      want: 'team-a/etl/r1/%2E%2E.0.stdout',
    },
    {
      name: 'a run id of ../other cannot reach another run',
      key: attemptKey(ref('s', '../other'), 'stdout'),
      want: 'team-a/etl/%2E%2E%2Fother/s.0.stdout',
    },
    {
      name: 'dots in names are encoded, so a step "x.1" never reads as attempt 1 of step x',
      key: attemptKey(ref('x.1'), 'stdout'),
      want: 'team-a/etl/r1/x%2E1.0.stdout',
    },
    {
      name: 'spaces and non-ASCII letters are percent-encoded',
      key: attemptKey(ref('größe prüfen'), 'stdout'),
      want: 'team-a/etl/r1/gr%C3%B6%C3%9Fe%20pr%C3%BCfen.0.stdout',
    },
    { name: 'a run prefix ends in a slash', key: runKeyPrefix('team-a', 'etl', 'r1'), want: 'team-a/etl/r1/' },
  ])('$name', ({ key, want }) => {
    expect(key).toBe(want);
  });

  it.each([
    { name: 'run r1 does not take in the logs of run r10', run: 'r1', other: 'r10' },
    { name: 'run a does not take in the logs of run a/b', run: 'a', other: 'a/b' },
    { name: 'run x does not take in the logs of run x/..', run: 'x', other: 'x/..' },
  ])('$name', ({ run, other }) => {
    expect(attemptKey(ref('s', other), 'stdout').startsWith(runKeyPrefix('team-a', 'etl', run))).toBe(false);
  });
});
