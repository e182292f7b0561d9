import { describe, expect, it } from 'vitest';
import type { DagRunResource } from '../../core/resources/types.ts';
import { admissible, queueName } from './admission.ts';

interface RunOptions {
  queue?: string;
  dagQueue?: string;
  status?: number;
  queuedAt?: string;
  letThrough?: boolean;
  parent?: boolean;
}

function run(name: string, options: RunOptions = {}): DagRunResource {
  const status = options.letThrough === true ? { queuedAt: options.queuedAt ?? '2026-01-01T00:00:00Z' } : options.status === undefined ? undefined : { status: options.status, ...(options.queuedAt === undefined ? {} : { queuedAt: options.queuedAt }) };
  return {
    metadata: { name },
    spec: {
      dagName: 'etl',
      enqueue: true,
      snapshot: options.dagQueue === undefined ? { steps: ['x'] } : { queue: options.dagQueue, steps: ['x'] },
      ...(options.queue === undefined ? {} : { queue: options.queue }),
      ...(options.parent === true ? { parent: { name: 'p', dagRunId: '1' } } : {}),
    },
    ...(status === undefined ? {} : { status }),
  };
}

const queued = (name: string, at: string, extra: RunOptions = {}): DagRunResource => run(name, { status: 5, queuedAt: `2026-01-01T00:00:0${at}Z`, ...extra });

describe('queueName', () => {
  it.each([
    ['its own queue override', run('a', { queue: 'fast', dagQueue: 'slow' }), 'fast'],
    ["its DAG's queue", run('a', { dagQueue: 'slow' }), 'slow'],
    ['its DAG name otherwise', run('a'), 'etl'],
  ])('names %s', (_what, given, want) => {
    expect(queueName(given)).toBe(want);
  });
});

describe('admissible', () => {
  const a = queued('a', '1');
  const b = queued('b', '2');
  const c = queued('c', '3');
  it.each([
    ['lets the oldest waiting run through when there is room', a, [c, b, a], 1, true],
    ['holds a younger run while an older one waits for the only slot', b, [a, b], 1, false],
    ['lets the two oldest through with two free slots', b, [a, b, c], 2, true],
    ['holds everyone while the running runs fill the queue', a, [run('r', { status: 1 }), a], 1, false],
    ['counts a run let through but not started as running', a, [run('t', { letThrough: true }), a], 1, false],
    ['counts a run started directly that has no status yet as running', a, [{ ...run('d'), spec: { ...run('d').spec, enqueue: false } }, a], 1, false],
    ['ignores running runs of other queues', a, [run('r', { status: 1, queue: 'other' }), a], 1, true],
    ['ignores sub runs, which never queue', a, [run('s', { status: 1, parent: true }), a], 1, true],
    ['treats a capacity below 1 as 1', a, [a], 0, true],
  ] as const)('%s', (_what, candidate, all, capacity, want) => {
    expect(admissible(candidate, all, capacity)).toBe(want);
  });

  it('counts admissions the cache has not shown yet as running', () => {
    expect(admissible(a, [a], 1, 1)).toBe(false);
  });
});
