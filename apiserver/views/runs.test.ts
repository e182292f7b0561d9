import { describe, expect, it } from 'vitest';
import { loadDag, type Dag } from '../../core/dag/index.ts';
import { ANNOTATIONS } from '../../core/resources/constants.ts';
import type { DagRunSpec, DagRunStatus, RunNode } from '../../core/resources/schemas.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import { dagRun as aDagRun } from '../../test/builders/dag-run.ts';
import { iso } from './format.ts';
import { runIdentity, type RunIdentity } from './identity.ts';
import {
  filterRuns,
  gridData,
  runDetails,
  runSummary,
  type GridRow,
  type NodeView,
  type RunFilter,
  type RunSummary,
} from './runs.ts';

interface RunOptions {
  readonly spec?: Partial<DagRunSpec>;
  readonly status?: DagRunStatus;
  readonly created?: string | Date;
  readonly annotations?: Record<string, string>;
}

/** A DAGRun of `dag` with id `id`, as the API's starter creates it. */
function dagRun(dag: string, id: string, options: RunOptions = {}): DagRunResource {
  const builder = aDagRun(`${dag}-${id}`)
    .of(dag, id)
    .spec(options.spec ?? {});
  if (options.created !== undefined) builder.created(options.created);
  if (options.annotations !== undefined) builder.annotate(options.annotations);
  return (options.status === undefined ? builder : builder.status(options.status)).build();
}

const node = (name: string, status: number, extra: Partial<RunNode> = {}): RunNode => ({
  name,
  status,
  statusLabel: '',
  ...extra,
});

const noRuns = (): DagRunResource | undefined => undefined;

describe('iso', () => {
  it.each<[string, unknown, string]>([
    ['keeps a canonical UTC time as it is', '2026-03-01T10:00:00Z', '2026-03-01T10:00:00Z'],
    ['drops milliseconds', '2026-03-01T10:00:00.987Z', '2026-03-01T10:00:00Z'],
    ['drops microseconds', '2026-03-01T10:00:00.123456Z', '2026-03-01T10:00:00Z'],
    ['converts an offset to UTC', '2026-03-01T12:00:00+02:00', '2026-03-01T10:00:00Z'],
    ['formats a Date', new Date(Date.UTC(2026, 2, 1, 10, 0, 0, 500)), '2026-03-01T10:00:00Z'],
    ['gives "" for undefined', undefined, ''],
    ['gives "" for null', null, ''],
    ['gives "" for an empty string', '', ''],
    ['gives "" for text that is no time', 'yesterday-ish', ''],
    ['gives "" for a number', 1_772_359_200_000, ''],
  ])('%s', (_, value, expected) => {
    expect(iso(value)).toBe(expected);
  });
});

describe('runIdentity', () => {
  it.each<[string, DagRunResource, RunIdentity]>([
    [
      'names a root run after itself, without a parent',
      dagRun('etl', 'r1'),
      { name: 'etl', dagRunId: 'r1', rootName: 'etl', rootId: 'r1', parentName: '', parentId: '' },
    ],
    [
      'takes the root and parent of a sub run from its spec',
      dagRun('child', 'c1', {
        spec: { parent: { name: 'mid', dagRunId: 'm1' }, root: { name: 'top', dagRunId: 't1' } },
      }),
      { name: 'child', dagRunId: 'c1', rootName: 'top', rootId: 't1', parentName: 'mid', parentId: 'm1' },
    ],
    [
      'lists a run of a renamed DAG under the new name',
      dagRun('etl', 'r1', { annotations: { [ANNOTATIONS.dagName]: 'warehouse' } }),
      { name: 'warehouse', dagRunId: 'r1', rootName: 'warehouse', rootId: 'r1', parentName: '', parentId: '' },
    ],
    [
      'falls back to the DAG reference and resource name without dagName and dagRunId',
      { metadata: { name: 'etl-abc' }, spec: { dagRef: { name: 'etl' } } },
      { name: 'etl', dagRunId: 'etl-abc', rootName: 'etl', rootId: 'etl-abc', parentName: '', parentId: '' },
    ],
  ])('%s', (_, run, expected) => {
    expect(runIdentity(run)).toEqual(expected);
  });

  it('is memoised per object', () => {
    const run = dagRun('etl', 'r1');
    expect(runIdentity(run)).toBe(runIdentity(run));
  });
});

describe('runSummary', () => {
  it('gives a root run its own name and id as root, and empty parent fields', () => {
    const run = dagRun('etl', 'r1', {
      spec: { params: 'A=0' },
      status: {
        status: 4,
        statusLabel: 'succeeded',
        queuedAt: '2026-03-01T09:59:59Z',
        startedAt: '2026-03-01T10:00:00.250Z',
        finishedAt: new Date('2026-03-01T10:05:00Z') as unknown as string,
        params: '{"A":"1"}',
      },
    });
    expect(runSummary(run)).toEqual<RunSummary>({
      rootDAGRunName: 'etl',
      rootDAGRunId: 'r1',
      parentDAGRunName: '',
      parentDAGRunId: '',
      dagRunId: 'r1',
      name: 'etl',
      status: 4,
      statusLabel: 'succeeded',
      queuedAt: '2026-03-01T09:59:59Z',
      startedAt: '2026-03-01T10:00:00Z',
      finishedAt: '2026-03-01T10:05:00Z',
      log: '/api/v2/dag-runs/etl/r1/log',
      params: '{"A":"1"}',
    });
  });

  it('gives a sub run the parent and root of its spec', () => {
    const run = dagRun('child', 'c1', {
      spec: { parent: { name: 'mid', dagRunId: 'm1' }, root: { name: 'top', dagRunId: 't1' } },
      status: { status: 1 },
    });
    expect(runSummary(run)).toMatchObject({
      rootDAGRunName: 'top',
      rootDAGRunId: 't1',
      parentDAGRunName: 'mid',
      parentDAGRunId: 'm1',
      name: 'child',
      dagRunId: 'c1',
      log: '/api/v2/dag-runs/child/c1/log',
    });
  });

  it('lists a run of a renamed DAG, and its log, under the new name', () => {
    const run = dagRun('etl', 'r1', { annotations: { [ANNOTATIONS.dagName]: 'warehouse' }, status: { status: 4 } });
    expect(runSummary(run)).toMatchObject({
      name: 'warehouse',
      rootDAGRunName: 'warehouse',
      log: '/api/v2/dag-runs/warehouse/r1/log',
    });
  });

  it('escapes the names in the log location', () => {
    expect(runSummary(dagRun('my dag', 'r1')).log).toBe('/api/v2/dag-runs/my%20dag/r1/log');
  });

  it('gives "" for times not set yet', () => {
    expect(runSummary(dagRun('etl', 'r1', { status: { status: 1, startedAt: '2026-03-01T10:00:00Z' } }))).toMatchObject(
      { queuedAt: '', startedAt: '2026-03-01T10:00:00Z', finishedAt: '' },
    );
  });

  it.each<[string, RunOptions, number, string]>([
    ['a queued run created with enqueue and no status yet', { spec: { enqueue: true } }, 5, 'queued'],
    ['a run created without enqueue and no status yet', {}, 0, 'not_started'],
    ['a run whose status has no label', { status: { status: 2 } }, 2, 'failed'],
    ['a run whose status has its own label', { status: { status: 3, statusLabel: 'canceled' } }, 3, 'canceled'],
    ['an enqueued run the operator has started', { spec: { enqueue: true }, status: { status: 1 } }, 1, 'running'],
    ['a run whose status object has no status yet', { spec: { enqueue: true }, status: {} }, 5, 'queued'],
  ])('shows %s with status %i (%s)', (_, options, status, statusLabel) => {
    expect(runSummary(dagRun('etl', 'r1', options))).toMatchObject({ status, statusLabel });
  });

  it.each<[string, RunOptions, string]>([
    ['the effective params of the status', { spec: { params: 'A=0' }, status: { params: '{"A":"1"}' } }, '{"A":"1"}'],
    ['the requested params before the run started', { spec: { params: 'A=0' } }, 'A=0'],
    ['"" without params', {}, ''],
  ])('shows %s', (_, options, params) => {
    expect(runSummary(dagRun('etl', 'r1', options)).params).toBe(params);
  });

  it('is memoised per object', () => {
    const run = dagRun('etl', 'r1');
    expect(runSummary(run)).toBe(runSummary(run));
  });
});

const ETL = `name: etl
preconditions:
  - condition: "$READY"
    expected: "yes"
handlerOn:
  success:
    command: echo done
  failure:
    command: echo alert
steps:
  - name: extract
    command: echo extract
  - name: load
    command: echo load
  - name: report
    command: echo report
`;

const etlDag = (): Dag => loadDag(ETL, { fileName: 'etl' }).dag;

describe('runDetails', () => {
  const finished = (): DagRunResource =>
    dagRun('etl', 'r1', {
      status: {
        status: 4,
        statusLabel: 'succeeded',
        nodes: [
          node('load', 4, {
            statusLabel: 'succeeded',
            startedAt: '2026-03-01T10:00:05.5Z',
            finishedAt: '2026-03-01T10:00:09Z',
            retryCount: 1,
          }),
          node('extract', 4, { startedAt: '2026-03-01T10:00:01Z', finishedAt: '2026-03-01T10:00:04Z', doneCount: 2 }),
        ],
        onSuccess: node('onSuccess', 4, { startedAt: '2026-03-01T10:00:10Z', finishedAt: '2026-03-01T10:00:11Z' }),
      },
    });

  it('has the run summary fields', () => {
    const run = finished();
    expect(runDetails(run, etlDag(), noRuns)).toMatchObject(runSummary(run));
  });

  it('has a node per step of the definition, in definition order', () => {
    expect(runDetails(finished(), etlDag(), noRuns).nodes.map((n) => [n.step.name, n.status, n.statusLabel])).toEqual([
      ['extract', 4, 'succeeded'],
      ['load', 4, 'succeeded'],
      ['report', 0, 'not_started'],
    ]);
  });

  it('shows a step without status as not started, with no times and zero counts', () => {
    const report = runDetails(finished(), etlDag(), noRuns).nodes[2];
    expect(report).toMatchObject({
      startedAt: '',
      finishedAt: '',
      status: 0,
      statusLabel: 'not_started',
      retryCount: 0,
      doneCount: 0,
      subRuns: [],
      subRunsRepeated: [],
      error: '',
    });
    expect(report?.step).toMatchObject({ name: 'report', command: 'echo', args: ['report'] });
  });

  it('shows the times, counts and log locations of a node', () => {
    expect(runDetails(finished(), etlDag(), noRuns).nodes[1]).toMatchObject<Partial<NodeView>>({
      startedAt: '2026-03-01T10:00:05Z',
      finishedAt: '2026-03-01T10:00:09Z',
      retryCount: 1,
      doneCount: 0,
      stdout: '/api/v2/dag-runs/etl/r1/steps/load/log?stream=stdout',
      stderr: '/api/v2/dag-runs/etl/r1/steps/load/log?stream=stderr',
    });
  });

  it("adds the exit code, outputs and attempts of a node that has them (Kubedag's additions)", () => {
    const recorded = finished();
    const attempts = [
      { attempt: 0, startedAt: '2026-03-01T10:00:05.5Z', finishedAt: '2026-03-01T10:00:06Z', status: 2, exitCode: 1 },
      { attempt: 1, startedAt: '2026-03-01T10:00:07Z', status: 1 },
    ];
    recorded.status = {
      ...recorded.status,
      nodes: (recorded.status?.nodes ?? []).map((n) => ({
        ...n,
        exitCode: 1,
        outputs: { ROWS: '42' },
        attempts,
        attemptsDropped: 3,
      })),
    };
    expect(runDetails(recorded, etlDag(), noRuns).nodes[0]).toMatchObject<Partial<NodeView>>({
      exitCode: 1,
      outputs: { ROWS: '42' },
      attempts: [
        {
          attempt: 0,
          startedAt: '2026-03-01T10:00:05Z',
          finishedAt: '2026-03-01T10:00:06Z',
          status: 2,
          statusLabel: 'failed',
          exitCode: 1,
        },
        { attempt: 1, startedAt: '2026-03-01T10:00:07Z', finishedAt: '', status: 1, statusLabel: 'running' },
      ],
      attemptsDropped: 3,
    });
  });

  it("has only the contract's node fields for a node without exit code, outputs or attempts", () => {
    const keys = Object.keys(runDetails(finished(), etlDag(), noRuns).nodes[0] ?? {}).sort();
    expect(keys).toEqual([
      'doneCount',
      'error',
      'finishedAt',
      'retryCount',
      'startedAt',
      'status',
      'statusLabel',
      'stderr',
      'stdout',
      'step',
      'subRuns',
      'subRunsRepeated',
    ]);
  });

  it('serves the step logs of a sub run under its root run', () => {
    const run = dagRun('child', 'c1', {
      spec: { parent: { name: 'etl', dagRunId: 'r1' }, root: { name: 'etl', dagRunId: 'r1' } },
      status: { status: 1, nodes: [node('work', 1)] },
    });
    expect(runDetails(run, undefined, noRuns).nodes[0]?.stdout).toBe(
      '/api/v2/dag-runs/etl/r1/sub-dag-runs/c1/steps/work/log?stream=stdout',
    );
  });

  it('encodes step names in log links, so a "/" or a space cannot break the path', () => {
    const dag = loadDag('steps:\n  - name: load data/part\n    command: echo hi\n', { fileName: 'etl' }).dag;
    const run = dagRun('etl', 'r1', { status: { status: 1, nodes: [node('load data/part', 1)] } });
    expect(runDetails(run, dag, noRuns).nodes[0]?.stdout).toBe(
      '/api/v2/dag-runs/etl/r1/steps/load%20data%2Fpart/log?stream=stdout',
    );
  });

  it('appends nodes of steps no longer in the definition', () => {
    const run = dagRun('etl', 'r1', { status: { status: 2, nodes: [node('legacy', 2, { error: 'exit status 1' })] } });
    const nodes = runDetails(run, etlDag(), noRuns).nodes;
    expect(nodes.map((n) => n.step.name)).toEqual(['extract', 'load', 'report', 'legacy']);
    expect(nodes[3]).toMatchObject({ status: 2, statusLabel: 'failed', error: 'exit status 1' });
  });

  it('shows only the nodes of the status without a definition', () => {
    const details = runDetails(finished(), undefined, noRuns);
    expect(details.nodes.map((n) => n.step.name)).toEqual(['load', 'extract']);
    expect(details.preconditions).toEqual([]);
  });

  it('has handler nodes only for handlers that ran', () => {
    const details = runDetails(finished(), etlDag(), noRuns);
    expect(details.onSuccess).toMatchObject({
      status: 4,
      statusLabel: 'succeeded',
      startedAt: '2026-03-01T10:00:10Z',
      step: { name: 'onSuccess', cmdWithArgs: 'echo done' },
    });
    expect([details.onFailure, details.onCancel, details.onExit]).toEqual([null, null, null]);
  });

  it('shows a handler that ran but is not in the definition as a plain step', () => {
    const run = dagRun('etl', 'r1', { status: { status: 3, onCancel: node('onCancel', 4) } });
    expect(runDetails(run, etlDag(), noRuns).onCancel?.step).toMatchObject({ name: 'onCancel', args: [] });
  });

  it.each<[string, DagRunStatus, string]>([
    [
      'with the run error when the preconditions stopped the run',
      { status: 3, endReason: 'preconditions', error: 'condition "$READY" was not met' },
      'condition "$READY" was not met',
    ],
    [
      'with an empty error when the preconditions stopped the run without one',
      { status: 3, endReason: 'preconditions' },
      '',
    ],
    [
      'without the run error when the run ended for another reason',
      { status: 3, endReason: 'stopped', error: 'stopped by user' },
      '',
    ],
    ['without error when the run has not ended', { status: 1 }, ''],
  ])('lists the preconditions %s', (_, status, error) => {
    expect(runDetails(dagRun('etl', 'r1', { status }), etlDag(), noRuns).preconditions).toEqual([
      { condition: '$READY', expected: 'yes', error },
    ]);
  });

  it('resolves sub runs through the callback, with the status of those it finds', () => {
    const children = new Map([
      ['c1', dagRun('child', 'c1', { status: { status: 4, statusLabel: 'succeeded' } })],
      ['c2', dagRun('child', 'c2', { status: { status: 1 } })],
      ['c3', dagRun('child', 'c3', { spec: { enqueue: true } })],
    ]);
    const asked: string[] = [];
    const resolve = (id: string): DagRunResource | undefined => {
      asked.push(id);
      return children.get(id);
    };
    const run = dagRun('etl', 'r1', {
      status: {
        status: 1,
        nodes: [
          node('extract', 1, {
            subRuns: [{ dagRunId: 'c1', params: '{"X":"1"}' }, { dagRunId: 'c2', params: '' }, { dagRunId: 'gone' }],
            subRunsRepeated: [{ dagRunId: 'c3' }],
          }),
        ],
      },
    });
    const extract = runDetails(run, etlDag(), resolve).nodes[0];
    expect(extract?.subRuns).toEqual([
      { dagRunId: 'c1', params: '{"X":"1"}', status: 4, statusLabel: 'succeeded' },
      { dagRunId: 'c2', status: 1, statusLabel: 'running' },
      { dagRunId: 'gone' },
    ]);
    expect(extract?.subRunsRepeated).toEqual([{ dagRunId: 'c3', status: 5, statusLabel: 'queued' }]);
    expect(asked).toEqual(['c1', 'c2', 'gone', 'c3']);
  });
});

describe('gridData', () => {
  const details = (id: string, status: DagRunStatus): ReturnType<typeof runDetails> =>
    runDetails(dagRun('etl', id, { status }), undefined, noRuns);

  it('has no rows for no runs', () => {
    expect(gridData([])).toEqual([]);
  });

  it('has a row per step name, sorted, with its status in each run and 0 where absent', () => {
    const runs = [
      details('r3', { status: 2, nodes: [node('b', 4), node('a', 2)] }),
      details('r2', { status: 4, nodes: [node('a', 4)] }),
      details('r1', { status: 1, nodes: [node('c', 1)] }),
    ];
    expect(gridData(runs)).toEqual<GridRow[]>([
      { name: 'a', history: [2, 4, 0] },
      { name: 'b', history: [4, 0, 0] },
      { name: 'c', history: [0, 0, 1] },
    ]);
  });

  it('adds handler rows only for handlers that ran in some run, after the steps', () => {
    const runs = [
      details('r2', { status: 2, nodes: [node('a', 2)], onExit: node('onExit', 4) }),
      details('r1', { status: 4, nodes: [node('a', 4)], onSuccess: node('onSuccess', 2) }),
    ];
    expect(gridData(runs)).toEqual<GridRow[]>([
      { name: 'a', history: [2, 4] },
      { name: 'onSuccess', history: [0, 2] },
      { name: 'onExit', history: [4, 0] },
    ]);
  });

  it('orders handler rows success, failure, cancel, exit', () => {
    const run = details('r1', {
      status: 3,
      onExit: node('onExit', 4),
      onCancel: node('onCancel', 4),
      onFailure: node('onFailure', 4),
      onSuccess: node('onSuccess', 4),
    });
    expect(gridData([run]).map((r) => r.name)).toEqual(['onSuccess', 'onFailure', 'onCancel', 'onExit']);
  });
});

describe('filterRuns', () => {
  const unix = (time: string): number => Date.parse(time) / 1000;
  const runs = [
    dagRun('etl', 'r1', { created: '2026-03-01T10:00:00Z', status: { status: 4 } }),
    dagRun('etl-daily', 'r3', { created: '2026-03-01T11:00:00Z', status: { status: 4 } }),
    dagRun('etl', 'r2', { created: new Date('2026-03-01T11:00:00Z'), status: { status: 2 } }),
    dagRun('report', 'x-r4', { created: '2026-03-01T12:00:00Z', status: { status: 1 } }),
    dagRun('report', 'q5', { created: '2026-03-01T12:30:00Z', spec: { enqueue: true } }),
  ];
  const ids = (filter: RunFilter): string[] => filterRuns(runs, filter).map((r) => runIdentity(r).dagRunId);

  it.each<[string, RunFilter, string[]]>([
    ['lists every run newest first, ties by run id, without filters', {}, ['q5', 'x-r4', 'r2', 'r3', 'r1']],
    ['keeps runs whose DAG name contains the name', { name: 'etl' }, ['r2', 'r3', 'r1']],
    ['keeps runs of exactly the name with exactName', { name: 'etl', exactName: true }, ['r2', 'r1']],
    ['ignores an empty name', { name: '', exactName: true }, ['q5', 'x-r4', 'r2', 'r3', 'r1']],
    ['keeps runs whose id contains the dagRunId', { dagRunId: 'r4' }, ['x-r4']],
    ['ignores an empty dagRunId', { dagRunId: '' }, ['q5', 'x-r4', 'r2', 'r3', 'r1']],
    ['keeps runs of the status', { status: 4 }, ['r3', 'r1']],
    ['counts a queued run without status as queued', { status: 5 }, ['q5']],
    ['keeps runs created at or after fromDate', { fromDate: unix('2026-03-01T11:00:00Z') }, ['q5', 'x-r4', 'r2', 'r3']],
    ['keeps runs created at or before toDate', { toDate: unix('2026-03-01T11:00:00Z') }, ['r2', 'r3', 'r1']],
    [
      'keeps runs between fromDate and toDate, both inclusive',
      { fromDate: unix('2026-03-01T10:00:00Z'), toDate: unix('2026-03-01T11:00:00Z') },
      ['r2', 'r3', 'r1'],
    ],
    ['compares dates at sub-second precision', { fromDate: unix('2026-03-01T11:00:00Z') + 0.5 }, ['q5', 'x-r4']],
    ['combines filters', { name: 'etl', status: 4, fromDate: unix('2026-03-01T10:30:00Z') }, ['r3']],
    ['finds nothing when no run matches', { name: 'nope' }, []],
  ])('%s', (_, filter, expected) => {
    expect(ids(filter)).toEqual(expected);
  });

  it('matches the name a renamed DAG lists its runs under', () => {
    const renamed = dagRun('etl', 'r9', { annotations: { [ANNOTATIONS.dagName]: 'warehouse' } });
    expect(filterRuns([renamed], { name: 'warehouse', exactName: true })).toEqual([renamed]);
    expect(filterRuns([renamed], { name: 'etl', exactName: true })).toEqual([]);
  });

  it('puts runs without a creation time last and leaves them out of date ranges', () => {
    const undated = dagRun('etl', 'r0');
    expect(filterRuns([undated, ...runs], {}).at(-1)).toBe(undated);
    expect(filterRuns([undated], { fromDate: 1 })).toEqual([]);
  });

  it('leaves the list it filters unchanged', () => {
    const before = [...runs];
    filterRuns(runs, {});
    expect(runs).toEqual(before);
  });
});
