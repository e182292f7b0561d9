import { describe, expect, it } from 'vitest';
import { ANNOTATIONS } from '../../core/resources/constants.ts';
import type { DagRunStatus } from '../../core/resources/schemas.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import { iso } from './format.ts';
import { runIdentity, type RunIdentity } from './identity.ts';
import { filterRuns, gridData, runDetails, runSummary, type GridRow, type RunFilter, type RunSummary } from './runs.ts';
import { dagRun, node, noRuns, type RunOptions } from '../../test/view-runs.ts';
import { dagRun as aDagRun } from '../../test/builders/dag-run.ts';

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
      aDagRun('etl-abc')
        .spec({ dagRef: { name: 'etl' } })
        .build(),
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
