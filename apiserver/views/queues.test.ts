import { describe, expect, it } from 'vitest';
import type { DagQueueResource, DagRunResource } from '../../core/resources/types.ts';
import { dagQueue } from '../../test/builders/dag-queue.ts';
import { dagRun } from '../../test/builders/dag-run.ts';
import { runLogPath } from './format.ts';
import { queues, queuesSummary, type Queue } from './queues.ts';
import { runSummary } from './runs.ts';

interface RunOptions {
  readonly status: number;
  readonly queue?: string;
  readonly parent?: boolean;
  readonly queuedAt?: string;
  readonly startedAt?: string;
  readonly finishedAt?: string;
  readonly created?: Date | string;
  readonly renamedTo?: string;
}

function run(dag: string, id: string, options: RunOptions): DagRunResource {
  const builder = dagRun(`${dag}-${id}`).of(dag, id);
  if (options.created !== undefined) builder.created(options.created);
  if (options.renamedTo !== undefined) builder.renamedTo(options.renamedTo);
  if (options.queue !== undefined) builder.spec({ queue: options.queue });
  if (options.parent === true) builder.child(['root', 'r1']);
  return builder
    .status({
      status: options.status,
      ...(options.queuedAt === undefined ? {} : { queuedAt: options.queuedAt }),
      ...(options.startedAt === undefined ? {} : { startedAt: options.startedAt }),
      ...(options.finishedAt === undefined ? {} : { finishedAt: options.finishedAt }),
    })
    .build();
}

/** The caller's rule, simplified: the run's own queue, else its DAG name. */
const queueOf = (r: DagRunResource): string => r.spec.queue ?? r.spec.dagName ?? '';

function view(queueList: DagQueueResource[], runs: DagRunResource[]): Queue[] {
  return queues({ queues: queueList, runs, dagQueue: queueOf });
}

/** Queue names with their running and queued run ids, for compact expectations. */
function shape(listed: Queue[]): [string, string, string[], string[]][] {
  return listed.map((q) => [
    q.name,
    q.type,
    q.runningDAGRuns.map((r) => r.dagRunId),
    q.queuedDAGRuns.map((r) => r.dagRunId),
  ]);
}

describe('the queues view', () => {
  it('lists nothing without queues or active runs', () => {
    expect(view([], [])).toEqual([]);
  });

  it('lists an empty custom queue with its capacity and zero counts', () => {
    expect(view([dagQueue('batch').maxConcurrency(3).build()], [])).toEqual([
      {
        name: 'batch',
        type: 'custom',
        maxConcurrency: 3,
        summary: { running: 0, queued: 0, total: 0 },
        runningDAGRuns: [],
        queuedDAGRuns: [],
        running: [],
        queued: [],
      },
    ]);
  });

  it('lists a dag-based queue without maxConcurrency, with reduced run summaries', () => {
    const runs = [
      run('etl', 'a', { status: 1, startedAt: '2026-11-22T09:00:00Z' }),
      run('etl', 'b', { status: 5, queuedAt: '2026-11-22T09:01:00.500Z' }),
    ];
    expect(view([], runs)).toEqual([
      {
        name: 'etl',
        type: 'dag-based',
        summary: { running: 1, queued: 1, total: 2 },
        runningDAGRuns: [
          {
            dagRunId: 'a',
            name: 'etl',
            status: 1,
            statusLabel: 'running',
            startedAt: '2026-11-22T09:00:00Z',
            finishedAt: '',
            log: '/api/v2/dag-runs/etl/a/log',
          },
        ],
        queuedDAGRuns: [
          {
            dagRunId: 'b',
            name: 'etl',
            status: 5,
            statusLabel: 'queued',
            startedAt: '',
            finishedAt: '',
            log: '/api/v2/dag-runs/etl/b/log',
          },
        ],
        running: [runSummary(runs[0] as DagRunResource)],
        queued: [runSummary(runs[1] as DagRunResource)],
      },
    ]);
  });

  it("carries each queue's runs as full run summaries too, in the same order (Dagu's running and queued)", () => {
    const runs = [
      run('etl', 'late', { status: 5, queuedAt: '2026-11-22T09:00:02Z' }),
      run('etl', 'early', { status: 5, queuedAt: '2026-11-22T09:00:01Z' }),
      run('etl', 'going', { status: 1, startedAt: '2026-11-22T09:00:00Z' }),
    ];
    const [etl] = view([], runs);
    expect(etl?.queued.map((r) => [r.dagRunId, r.rootDAGRunName, r.rootDAGRunId, r.queuedAt])).toEqual([
      ['early', 'etl', 'early', '2026-11-22T09:00:01Z'],
      ['late', 'etl', 'late', '2026-11-22T09:00:02Z'],
    ]);
    expect(etl?.running.map((r) => [r.dagRunId, r.statusLabel, r.startedAt])).toEqual([
      ['going', 'running', '2026-11-22T09:00:00Z'],
    ]);
  });

  it.each([
    { name: 'not started', status: 0 },
    { name: 'failed', status: 2 },
    { name: 'canceled', status: 3 },
    { name: 'succeeded', status: 4 },
    { name: 'partially succeeded', status: 6 },
  ])('leaves out a $name run, so its dag-based queue disappears', ({ status }) => {
    expect(view([], [run('etl', 'a', { status, finishedAt: '2026-11-22T09:00:00Z' })])).toEqual([]);
  });

  it('leaves out a run with no status yet', () => {
    const fresh = dagRun('etl-a').spec({ dagName: 'etl', dagRunId: 'a' }).build();
    expect(view([], [fresh])).toEqual([]);
  });

  it('lists an enqueued run the operator has not seen yet as queued in both of its forms', () => {
    const fresh = dagRun('etl-a').spec({ dagName: 'etl', dagRunId: 'a', enqueue: true }).build();
    const [etl] = view([], [fresh]);
    expect([
      etl?.queuedDAGRuns.map((r) => [r.status, r.statusLabel]),
      etl?.queued.map((r) => [r.status, r.statusLabel]),
    ]).toEqual([[[5, 'queued']], [[5, 'queued']]]);
  });

  it('does not count sub runs, which bypass queues', () => {
    const runs = [
      run('child', 'c1', { status: 1, parent: true }),
      run('child', 'c2', { status: 5, parent: true, queue: 'batch' }),
    ];
    expect(shape(view([dagQueue('batch').maxConcurrency(1).build()], runs))).toEqual([['batch', 'custom', [], []]]);
  });

  it('counts a run whose queue names a DAGQueue in that custom queue', () => {
    const runs = [run('etl', 'a', { status: 1, queue: 'batch' }), run('report', 'b', { status: 5, queue: 'batch' })];
    const [batch, ...rest] = view([dagQueue('batch').maxConcurrency(2).build()], runs);
    expect(batch?.summary).toEqual({ running: 1, queued: 1, total: 2 });
    expect(rest).toEqual([]);
  });

  it('merges runs of a DAG named like a custom queue into that custom queue', () => {
    expect(shape(view([dagQueue('etl').maxConcurrency(1).build()], [run('etl', 'a', { status: 5 })]))).toEqual([
      ['etl', 'custom', [], ['a']],
    ]);
  });

  it('treats a queue name no DAGQueue defines as dag-based', () => {
    expect(shape(view([], [run('etl', 'a', { status: 5, queue: 'nightly' })]))).toEqual([
      ['nightly', 'dag-based', [], ['a']],
    ]);
  });

  it('uses the queue the caller assigns, not only spec.queue', () => {
    const listed = queues({
      queues: [dagQueue('shared').maxConcurrency(4).build()],
      runs: [run('etl', 'a', { status: 1 })],
      dagQueue: () => 'shared',
    });
    expect(shape(listed)).toEqual([['shared', 'custom', ['a'], []]]);
  });

  it('lists custom queues by name first, then dag-based queues by name', () => {
    const runs = [run('zeta', 'z', { status: 1 }), run('alpha', 'a', { status: 5 }), run('Beta', 'b', { status: 1 })];
    const listed = view(
      [dagQueue('nightly').maxConcurrency(1).build(), dagQueue('batch').maxConcurrency(1).build()],
      runs,
    );
    expect(listed.map((q) => [q.name, q.type])).toEqual([
      ['batch', 'custom'],
      ['nightly', 'custom'],
      ['Beta', 'dag-based'],
      ['alpha', 'dag-based'],
      ['zeta', 'dag-based'],
    ]);
  });

  it('names a run after its DAG under a rename and points its log at that name', () => {
    const [etl] = view([], [run('etl', 'a', { status: 1, renamedTo: 'etl-v2' })]);
    expect(etl?.runningDAGRuns[0]).toMatchObject({ name: 'etl-v2', log: '/api/v2/dag-runs/etl-v2/a/log' });
  });
});

describe('the totals over all queues', () => {
  const running = (dag: string, id: string, queue?: string): DagRunResource =>
    run(dag, id, { status: 1, ...(queue === undefined ? {} : { queue }) });
  const waiting = (dag: string, id: string, queue?: string): DagRunResource =>
    run(dag, id, { status: 5, ...(queue === undefined ? {} : { queue }) });
  it.each([
    {
      name: 'are all zero without queues',
      queues: [],
      runs: [],
      want: { totalQueues: 0, totalRunning: 0, totalQueued: 0, totalCapacity: 0, utilizationPercentage: 0 },
    },
    {
      name: 'count an empty custom queue and its capacity',
      queues: [dagQueue('batch').maxConcurrency(4).build()],
      runs: [],
      want: { totalQueues: 1, totalRunning: 0, totalQueued: 0, totalCapacity: 4, utilizationPercentage: 0 },
    },
    {
      name: "use the custom queues' running runs against their summed capacity",
      queues: [dagQueue('batch').maxConcurrency(4).build(), dagQueue('nightly').maxConcurrency(4).build()],
      runs: [running('a', '1', 'batch'), running('b', '2', 'nightly'), waiting('c', '3', 'batch')],
      want: { totalQueues: 2, totalRunning: 2, totalQueued: 1, totalCapacity: 8, utilizationPercentage: 25 },
    },
    {
      name: "count dag-based queues' runs in the totals but not in the utilization, as they list no capacity",
      queues: [dagQueue('batch').maxConcurrency(2).build()],
      runs: [running('a', '1', 'batch'), running('etl', '2'), running('etl', '3'), waiting('etl', '4')],
      want: { totalQueues: 2, totalRunning: 3, totalQueued: 1, totalCapacity: 2, utilizationPercentage: 50 },
    },
    {
      name: 'are no more than 100% when a lowered capacity still has more runs going',
      queues: [dagQueue('batch').maxConcurrency(1).build()],
      runs: [running('a', '1', 'batch'), running('b', '2', 'batch')],
      want: { totalQueues: 1, totalRunning: 2, totalQueued: 0, totalCapacity: 1, utilizationPercentage: 100 },
    },
    {
      name: 'have no capacity and no utilization with dag-based queues only',
      queues: [],
      runs: [running('etl', '1'), waiting('etl', '2')],
      want: { totalQueues: 1, totalRunning: 1, totalQueued: 1, totalCapacity: 0, utilizationPercentage: 0 },
    },
  ])('$name', ({ queues: queueList, runs, want }) => {
    expect(queuesSummary(view(queueList, runs))).toEqual(want);
  });
});

describe('run order within a queue', () => {
  it.each([
    {
      name: 'queued runs by queuedAt, whatever the text format',
      runs: [
        run('etl', 'late', { status: 5, queuedAt: '2026-11-22T09:00:02Z' }),
        run('etl', 'early', { status: 5, queuedAt: '2026-11-22T11:00:01+02:00' }),
        run('etl', 'mid', { status: 5, queuedAt: '2026-11-22T09:00:01.500Z' }),
      ],
      queued: ['early', 'mid', 'late'],
    },
    {
      name: 'queued runs without queuedAt by creation, after those with it',
      runs: [
        run('etl', 'no-time-late', { status: 5, created: new Date('2026-11-22T08:00:02Z') }),
        run('etl', 'no-time-early', { status: 5, created: '2026-11-22T08:00:01Z' }),
        run('etl', 'timed', { status: 5, queuedAt: '2026-11-22T09:00:00Z', created: '2026-11-22T09:00:00Z' }),
      ],
      queued: ['timed', 'no-time-early', 'no-time-late'],
    },
    {
      name: 'queued runs with equal queuedAt by creation, then by run id',
      runs: [
        run('etl', 'c', { status: 5, queuedAt: '2026-11-22T09:00:00Z', created: '2026-11-22T09:00:00Z' }),
        run('etl', 'b', { status: 5, queuedAt: '2026-11-22T09:00:00Z', created: '2026-11-22T08:59:59Z' }),
        run('etl', 'a', { status: 5, queuedAt: '2026-11-22T09:00:00Z', created: '2026-11-22T09:00:00Z' }),
      ],
      queued: ['b', 'a', 'c'],
    },
  ])('orders $name', ({ runs, queued }) => {
    expect(view([], runs)[0]?.queuedDAGRuns.map((r) => r.dagRunId)).toEqual(queued);
  });

  it('orders running runs by start, oldest first', () => {
    const runs = [
      run('etl', 'second', { status: 1, startedAt: '2026-11-22T09:00:02Z' }),
      run('etl', 'unstarted', { status: 1 }),
      run('etl', 'first', { status: 1, startedAt: '2026-11-22T09:00:01Z' }),
    ];
    expect(view([], runs)[0]?.runningDAGRuns.map((r) => r.dagRunId)).toEqual(['first', 'second', 'unstarted']);
  });
});

describe('the run log path', () => {
  it.each([
    { name: 'etl', id: '0190a1', want: '/api/v2/dag-runs/etl/0190a1/log' },
    { name: 'my.dag', id: 'run_1-x', want: '/api/v2/dag-runs/my.dag/run_1-x/log' },
    { name: 'a b', id: 'x/y', want: '/api/v2/dag-runs/a%20b/x%2Fy/log' },
  ])('addresses $name/$id as $want', ({ name, id, want }) => {
    expect(runLogPath(name, id)).toBe(want);
  });
});
