import { describe, expect, it } from 'vitest';
import { loadDag, type Dag } from '../../core/dag/index.ts';
import type { DagRunStatus } from '../../core/resources/schemas.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import { runDetails, runSummary, type NodeView } from './runs.ts';
import { dagRun, node, noRuns } from '../../test/view-runs.ts';

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
