import { describe, expect, it } from 'vitest';
import type { DagRunResource } from '../../../core/resources/types.ts';
import { queueName } from '../../../core/resources/queue.ts';
import { dagRun, type DagRunBuilder } from '../../../test/builders/dag-run.ts';
import { dagCapacity, decideQueue, queueEntry, queuePlace } from './admission.ts';

/** An enqueued run of `etl` (one step), created at 00:00, no status yet. */
const run = (name: string): DagRunBuilder =>
  dagRun(name)
    .created(new Date('2026-01-01T00:00:00Z'))
    .spec({ dagName: 'etl', enqueue: true })
    .snapshot({ steps: ['x'] });
/** Let out of its queue at `at`, not started yet. */
const handedOff = (name: string, at: string): DagRunResource =>
  run(name).status({ queuedAt: '2026-01-01T00:00:00Z', handedOffAt: at }).build();
const queued = (name: string, second: string): DagRunResource =>
  run(name)
    .status({ status: 5, queuedAt: `2026-01-01T00:00:0${second}Z` })
    .build();
const names = (runs: readonly DagRunResource[]): string[] => runs.map((r) => r.metadata?.name ?? '');
const now = new Date('2026-01-01T00:01:00Z');

describe('queueName', () => {
  it.each([
    ['its own queue override', run('a').spec({ queue: 'fast' }).snapshot({ queue: 'slow' }).build(), 'fast'],
    ["its DAG's queue", run('a').snapshot({ queue: 'slow' }).build(), 'slow'],
    ['its DAG name otherwise', run('a').build(), 'etl'],
  ])('names %s', (_what, given, want) => {
    expect(queueName(given)).toBe(want);
  });
});

describe('queuePlace', () => {
  it.each([
    ['a run started directly proceeds', run('a').spec({ enqueue: false }).build(), 'proceed'],
    [
      'a sub run proceeds, bypassing its queue',
      run('a')
        .spec({ parent: { name: 'p', dagRunId: '1' } })
        .build(),
      'proceed',
    ],
    ['a new enqueued run enters its queue', run('a').build(), 'enter'],
    ['a queued run waits for the admission loop', run('a').status({ status: 5 }).build(), 'wait'],
    ['a run let out of its queue proceeds to start', handedOff('a', '2026-01-01T00:00:30Z'), 'proceed'],
    ['a running enqueued run proceeds', run('a').status({ status: 1 }).build(), 'proceed'],
  ])('%s', (_what, given, want) => {
    expect(queuePlace(given)).toBe(want);
  });
});

describe('dagCapacity', () => {
  it.each([
    ['maxActiveRuns of the frozen definition', [run('a').snapshot({ maxActiveRuns: 3 }).build()], 3],
    ['1 when the DAG does not say', [run('a').build()], 1],
    ['1 for 0', [run('a').snapshot({ maxActiveRuns: 0 }).build()], 1],
    ['no limit for -1', [run('a').snapshot({ maxActiveRuns: -1 }).build()], Number.MAX_SAFE_INTEGER],
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
    ['lets nobody out while the running runs fill the queue', [run('r').status({ status: 1 }).build(), a], 1, []],
    ['counts a run let out but not started yet as running', [handedOff('t', '2026-01-01T00:00:55Z'), a], 1, []],
    [
      'counts a run started directly that has no status yet as running',
      [run('d').spec({ enqueue: false }).build(), a],
      1,
      [],
    ],
    [
      'ignores sub runs, which never queue',
      [
        run('s')
          .spec({ parent: { name: 'p', dagRunId: '1' } })
          .status({ status: 1 })
          .build(),
        a,
      ],
      1,
      ['a'],
    ],
    ['treats a capacity below 1 as 1', [a, b], 0, ['a']],
  ] as const)('%s', (_what, members, capacity, want) => {
    expect(names(decideQueue(members, capacity, now).admit)).toEqual(want);
  });

  it('gives up runs let out more than 10 s ago that did not start, freeing their slot', () => {
    const stale = handedOff('stale', '2026-01-01T00:00:49Z');
    const fresh = handedOff('fresh', '2026-01-01T00:00:51Z');
    expect(names(decideQueue([stale, a], 1, now).expire)).toEqual(['stale']);
    expect(names(decideQueue([stale, a], 1, now).admit)).toEqual(['a']);
    expect(decideQueue([fresh, a], 1, now)).toEqual({ admit: [], expire: [] });
  });

  it.each([
    ['keeps a run the dead leader let out long ago while the new leader is in its first 10 s', 3000, []],
    ['gives it up once the new leader has led for 10 s without starting it', 11_000, ['stale']],
  ])('after a failover, %s', (_what, ledForMs, want) => {
    const stale = handedOff('stale', '2026-01-01T00:00:00Z');
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
