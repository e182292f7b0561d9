import { describe, expect, it } from 'vitest';
import { execCommand } from './container-exec.ts';

describe('the command a containerName step runs', () => {
  it.each([
    { name: 'the words alone without exec settings', target: {}, want: ['cat', 'f'] },
    {
      name: 'behind env(1) with exec env, references expanded from the step',
      target: { env: ['A=${X}', 'B=2'] },
      want: ['env', 'A=x-value', 'B=2', 'cat', 'f'],
    },
    {
      name: 'behind a cd in sh with exec workingDir',
      target: { workingDir: '/data/${X}' },
      want: ['sh', '-c', 'cd -- "$1" || exit 1; shift; exec "$@"', 'kubedag-cd', '/data/x-value', 'cat', 'f'],
    },
  ])('is $name', ({ target, want }) => {
    expect(execCommand(['cat', 'f'], target, { X: 'x-value' })).toEqual(want);
  });
});
