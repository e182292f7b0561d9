import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { chooseContainer } from './pod-container.ts';

function pod(containers: string[], running: string[], annotation?: string, phase = 'Running'): V1Pod {
  return {
    metadata: {
      name: 'db',
      ...(annotation === undefined ? {} : { annotations: { 'kubectl.kubernetes.io/default-container': annotation } }),
    },
    spec: { containers: containers.map((name) => ({ name })) },
    status: {
      phase,
      containerStatuses: containers.map((name) => ({
        name,
        image: 'i',
        imageID: '',
        ready: true,
        restartCount: 0,
        state: running.includes(name) ? { running: {} } : { waiting: {} },
      })),
    },
  };
}

describe('the container an exec into a Pod picks', () => {
  it.each([
    {
      name: 'the named container when it runs',
      pod: pod(['a', 'b'], ['a', 'b']),
      named: 'b',
      want: { container: 'b' },
    },
    {
      name: 'the default-container annotation when none is named',
      pod: pod(['a', 'b'], ['a', 'b'], 'b'),
      named: undefined,
      want: { container: 'b' },
    },
    {
      name: 'the first container when none is named and there is no annotation',
      pod: pod(['a', 'b'], ['a', 'b']),
      named: undefined,
      want: { container: 'a' },
    },
    {
      name: 'an error naming the containers when the named one is not in the Pod',
      pod: pod(['a'], ['a']),
      named: 'x',
      want: { error: 'Pod db has no container "x" (it has: a)' },
    },
    {
      name: 'an error when the container is not running',
      pod: pod(['a'], []),
      named: undefined,
      want: { error: 'container db/a is not running' },
    },
    {
      name: 'an error when the Pod has finished',
      pod: pod(['a'], ['a'], undefined, 'Succeeded'),
      named: 'a',
      want: { error: 'container db/a is not running' },
    },
  ])('is $name', ({ pod: p, named, want }) => {
    expect(chooseContainer(p, named)).toEqual(want);
  });
});
