import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { DagRunResource } from '../../../core/resources/types.ts';
import { dagRun } from '../../../test/builders/dag-run.ts';
import { removesContainer } from './container-cleanup.ts';
import { sharedContainer, type SharedContainer } from '../pods/shared-container.ts';

const container = (keepContainer: boolean): SharedContainer => {
  const read = sharedContainer({ image: 'alpine', keepContainer }, true);
  if ('problems' in read) throw new Error(read.problems.join('; '));
  return read.container;
};
const run = (finished: boolean): DagRunResource =>
  dagRun('r')
    .namespace('n')
    .status(finished ? { finishedAt: '2026-11-24T10:00:00Z' } : {})
    .build();
const pod = (deleting = false): V1Pod => ({
  metadata: { name: 'r-container', ...(deleting ? { deletionTimestamp: new Date() } : {}) },
});

describe("when a run's container Pod goes", () => {
  it.each([
    { name: 'it goes once the run has finished', finished: true, keep: false, pod: pod(), want: true },
    { name: 'it stays while the run runs', finished: false, keep: false, pod: pod(), want: false },
    { name: 'it stays after the run when the DAG keeps it', finished: true, keep: true, pod: pod(), want: false },
    {
      name: 'a Pod already being removed is not deleted again',
      finished: true,
      keep: false,
      pod: pod(true),
      want: false,
    },
    { name: 'a Pod that is gone needs nothing', finished: true, keep: false, pod: undefined, want: false },
  ])('$name', ({ finished, keep, pod: found, want }) => {
    expect(removesContainer(run(finished), { container: container(keep) }, found)).toBe(want);
  });

  it('a run without a container has none to remove', () => {
    expect(removesContainer(run(true), {}, pod())).toBe(false);
  });
});
