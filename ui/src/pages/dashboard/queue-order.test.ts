import { describe, expect, it } from 'vitest';
import { inQueueOrder } from './queue-order.ts';

const run = (dagRunId: string, queuedAt: string, name = 'd') => ({ name, dagRunId, queuedAt });

describe('inQueueOrder', () => {
  it.each([
    {
      name: 'the longest-waiting run comes first, whatever order the list came in',
      runs: [run('b', '2026-11-29T10:00:02Z'), run('a', '2026-11-29T10:00:01Z')],
      want: ['a', 'b'],
    },
    {
      name: 'runs queued in the same second go by DAG name, then run ID',
      runs: [
        run('2', '2026-11-29T10:00:01Z', 'y'),
        run('9', '2026-11-29T10:00:01Z', 'x'),
        run('1', '2026-11-29T10:00:01Z', 'y'),
      ],
      want: ['9', '1', '2'],
    },
    {
      name: 'a run without a queueing time goes last',
      runs: [run('none', ''), run('a', '2026-11-29T10:00:01Z')],
      want: ['a', 'none'],
    },
  ])('$name', ({ runs, want }) => {
    expect(inQueueOrder(runs).map((r) => r.dagRunId)).toEqual(want);
  });
});
