import { describe, expect, it } from 'vitest';
import type { DagRunResource } from '../../../core/resources/types.ts';
import { queueName } from '../../../core/resources/queue.ts';
import { dagRun } from '../../../test/builders/dag-run.ts';
import { dagCapacity, decideQueue, queueEntry, queuePlace } from './admission.ts';

interface RunOptions {
  queue?: string;
  dagQueue?: string;
  status?: number;
  queuedAt?: string;
  handedOffAt?: string;
  parent?: boolean;
  enqueue?: boolean;
  maxActiveRuns?: number;
}

function run(name: string, options: RunOptions = {}): DagRunResource {
  const status =
    options.handedOffAt !== undefined
      ? { queuedAt: options.queuedAt ?? '2026-01-01T00:00:00Z', handedOffAt: options.handedOffAt }
      : options.status === undefined
        ? undefined
        : { status: options.status, ...(options.queuedAt === undefined ? {} : { queuedAt: options.queuedAt }) };
  const snapshot: Record<string, unknown> = {
    steps: ['x'],
    ...(options.dagQueue === undefined ? {} : { queue: options.dagQueue }),
    ...(options.maxActiveRuns === undefined ? {} : { maxActiveRuns: options.maxActiveRuns }),
  };
  const builder = dagRun(name)
    .created(new Date('2026-01-01T00:00:00Z'))
    .spec({
      dagName: 'etl',
      enqueue: options.enqueue ?? true,
      snapshot,
      ...(options.queue === undefined ? {} : { queue: options.queue }),
      ...(options.parent === true ? { parent: { name: 'p', dagRunId: '1' } } : {}),
    });
  return (status === undefined ? builder : builder.status(status)).build();
}

const queued = (name: string, second: string, extra: RunOptions = {}): DagRunResource =>
  run(name, { status: 5, queuedAt: `2026-01-01T00:00:0${second}Z`, ...extra });
const names = (runs: readonly DagRunResource[]): string[] => runs.map((r) => r.metadata?.name ?? '');
const now = new Date('2026-01-01T00:01:00Z');

describe('queueName', () => {
  it.each([
    ['its own queue override', run('a', { queue: 'fast', dagQueue: 'slow' }), 'fast'],
    ["its DAG's queue", run('a', { dagQueue: 'slow' }), 'slow'],
    ['its DAG name otherwise', run('a'), 'etl'],
  ])('names %s', (_what, given, want) => {
    expect(queueName(given)).toBe(want);
  });
});

describe('queuePlace', () => {
  it.each([
    ['a run started directly proceeds', run('a', { enqueue: false }), 'proceed'],
    ['a sub run proceeds, bypassing its queue', run('a', { parent: true }), 'proceed'],
    ['a new enqueued run enters its queue', run('a'), 'enter'],
    ['a queued run waits for the admission loop', run('a', { status: 5 }), 'wait'],
    ['a run let out of its queue proceeds to start', run('a', { handedOffAt: '2026-01-01T00:00:30Z' }), 'proceed'],
    ['a running enqueued run proceeds', run('a', { status: 1 }), 'proceed'],
  ])('%s', (_what, given, want) => {
    expect(queuePlace(given)).toBe(want);
  });
});

describe('dagCapacity', () => {
  it.each([
    ['maxActiveRuns of the frozen definition', [run('a', { maxActiveRuns: 3 })], 3],
    ['1 when the DAG does not say', [run('a')], 1],
    ['1 for 0', [run('a', { maxActiveRuns: 0 })], 1],
    ['no limit for -1', [run('a', { maxActiveRuns: -1 })], Number.MAX_SAFE_INTEGER],
  ])('is %s', (_what, members, want) => {
    expect(dagCapacity(members)).toBe(want);
  });
});

describe('decideQueue', () => {
  const a = queued('a', '1');
  const b = queued('b', '2');
  const c = queued('c', '3');
  it.each([
    ['lets the oldest waiting run out when there is room', [c, b, a], 1, ['a']],
    ['lets the two oldest out with two free slots', [c, b, a], 2, ['a', 'b']],
    ['lets nobody out while the running runs fill the queue', [run('r', { status: 1 }), a], 1, []],
    [
      'counts a run let out but not started yet as running',
      [run('t', { handedOffAt: '2026-01-01T00:00:55Z' }), a],
      1,
      [],
    ],
    ['counts a run started directly that has no status yet as running', [run('d', { enqueue: false }), a], 1, []],
    ['ignores sub runs, which never queue', [run('s', { status: 1, parent: true }), a], 1, ['a']],
    ['treats a capacity below 1 as 1', [a, b], 0, ['a']],
  ] as const)('%s', (_what, members, capacity, want) => {
    expect(names(decideQueue(members, capacity, now).admit)).toEqual(want);
  });

  it('gives up runs let out more than 10 s ago that did not start, freeing their slot', () => {
    const stale = run('stale', { handedOffAt: '2026-01-01T00:00:49Z' });
    const fresh = run('fresh', { handedOffAt: '2026-01-01T00:00:51Z' });
    expect(names(decideQueue([stale, a], 1, now).expire)).toEqual(['stale']);
    expect(names(decideQueue([stale, a], 1, now).admit)).toEqual(['a']);
    expect(decideQueue([fresh, a], 1, now)).toEqual({ admit: [], expire: [] });
  });

  it.each([
    ['keeps a run the dead leader let out long ago while the new leader is in its first 10 s', 3000, []],
    ['gives it up once the new leader has led for 10 s without starting it', 11_000, ['stale']],
  ])('after a failover, %s', (_what, ledForMs, want) => {
    const stale = run('stale', { handedOffAt: '2026-01-01T00:00:00Z' });
    expect(names(decideQueue([stale, a], 1, now, new Date(now.getTime() - ledForMs)).expire)).toEqual(want);
  });
});

describe('queueEntry', () => {
  it('a run entering its queue is queued from now', () => {
    expect(queueEntry(new Date('2026-01-01T00:00:00Z'))).toEqual({
      status: 5,
      statusLabel: 'queued',
      queuedAt: '2026-01-01T00:00:00.000Z',
    });
  });
});
