import { describe, expect, it } from 'vitest';
import { dagDetails } from '../../core/dag/api.ts';
import { loadDag } from '../../core/dag/index.ts';
import { dagQueue } from '../../test/builders/dag-queue.ts';
import { dagRun } from '../../test/builders/dag-run.ts';
import { neverRanDetails } from '../views/dags.ts';
import { queues } from '../views/queues.ts';
import { runDetails, runSummary } from '../views/runs.ts';
import { ANNOTATIONS } from '../../core/resources/constants.ts';
import { PARTS } from '../schemas.ts';
import { v1Dag, v1Details, v1Grid, v1Queue, v1Step, v1Summary } from './views.ts';

const V2_SUMMARY_KEYS = Object.keys(PARTS.runSummary.properties);

const dag = loadDag(
  'tags: [ops]\nhandlerOn:\n  cancel: {command: echo aborted}\n  exit: {command: echo bye}\nsteps:\n  - {name: say, command: echo hello world}\n  - {name: sh, script: "echo one"}\n',
  { fileName: 'greet' },
).dag;

describe('the v1 shapes of the v2 views', () => {
  it('lists a step command as `commands` and its executor as `executorConfig`', () => {
    const [say, sh] = dagDetails(dag).steps.map(v1Step);
    expect(say).toMatchObject({
      name: 'say',
      commands: [{ command: 'echo', args: ['hello', 'world'] }],
      executorConfig: { type: 'shell' },
    });
    expect(['command', 'args', 'cmdWithArgs', 'executor', 'run'].filter((key) => key in (say ?? {}))).toEqual([]);
    expect(sh?.commands).toEqual([]);
  });

  it('names the cancel handler `abort`, and tags also `labels`', () => {
    const v1 = v1Dag(dagDetails(dag));
    expect(Object.keys(v1.handlerOn).sort()).toEqual(['abort', 'exit']);
    expect(v1.handlerOn.abort?.commands).toEqual([{ command: 'echo', args: ['aborted'] }]);
    expect(v1.labels).toEqual(['ops']);
  });

  it('gives a run summary the two fields v1 requires', () => {
    const summary = runSummary(
      dagRun('greet-r1').of('greet', 'r1').status({ status: 4, statusLabel: 'succeeded' }).build(),
    );
    expect(v1Summary(summary)).toEqual({ ...summary, artifactsAvailable: false, autoRetryCount: 0 });
  });

  const policy = { limit: 3, intervalSec: 60, maxIntervalSec: 3600 };
  const retried: [
    string,
    Record<string, string>,
    number | undefined,
    { autoRetryCount: number; autoRetryLimit?: number },
  ][] = [
    ['a run of a DAG without a retry policy', {}, undefined, { autoRetryCount: 0 }],
    ['a run the policy has not retried yet', {}, 3, { autoRetryCount: 0, autoRetryLimit: 3 }],
    ['a run the policy retried twice', { [ANNOTATIONS.autoRetries]: '2' }, 3, { autoRetryCount: 2, autoRetryLimit: 3 }],
    [
      'a run whose count annotation is no count',
      { [ANNOTATIONS.autoRetries]: 'x' },
      3,
      { autoRetryCount: 0, autoRetryLimit: 3 },
    ],
    ['a run of a DAG whose policy retries nothing', {}, 0, { autoRetryCount: 0 }],
  ];
  it.each(retried)(
    "gives the automatic retries of %s in v1's summary, and none in v2's",
    (_name, annotations, limit, fields) => {
      const run = dagRun('flaky-r1')
        .of('flaky', 'r1')
        .annotate(annotations)
        .spec(
          limit === undefined
            ? {}
            : { frozenDefinition: { segment: 'flaky-r1-def', retryPolicy: { ...policy, limit } } },
        )
        .status({ status: 3, statusLabel: 'failed' })
        .build();
      const v1 = v1Summary(runSummary(run));
      expect({
        autoRetryCount: v1.autoRetryCount,
        ...('autoRetryLimit' in v1 ? { autoRetryLimit: v1.autoRetryLimit } : {}),
      }).toEqual(fields);
      expect(V2_SUMMARY_KEYS.filter((key) => key.startsWith('autoRetry'))).toEqual([]);
    },
  );

  it('moves onCancel to onAbort and leaves out the handlers a run has not', () => {
    const details = v1Details(neverRanDetails(dag));
    expect([
      details.onAbort?.step.name,
      details.onExit?.step.name,
      'onSuccess' in details,
      'onCancel' in details,
    ]).toEqual(['onCancel', 'onExit', false, false]);
    expect(details.nodes.map((n) => n.step.commands)).toEqual([[{ command: 'echo', args: ['hello', 'world'] }], []]);
    const run = dagRun('greet-r1').of('greet', 'r1').status({ status: 4, statusLabel: 'succeeded', nodes: [] }).build();
    expect('onAbort' in v1Details(runDetails(run, dag, () => undefined))).toBe(false);
  });

  it('shows the init handler a run has as onInit in both APIs, and leaves it out of a DAG without one', () => {
    const withInit = loadDag('handler_on: {init: {run: setup}}\nsteps:\n  - {name: say, run: echo hi}\n', {
      fileName: 'greet',
    }).dag;
    const node = { name: 'onInit', status: 4, statusLabel: 'succeeded', retryCount: 0, doneCount: 1, attempt: 0 };
    const run = dagRun('greet-r1')
      .of('greet', 'r1')
      .status({ status: 4, statusLabel: 'succeeded', nodes: [], onInit: node })
      .build();
    const v2 = runDetails(run, withInit, () => undefined);
    expect([v2.onInit?.status, v1Details(v2).onInit?.step.name]).toEqual([4, 'onInit']);
    expect(v1Dag(dagDetails(withInit)).handlerOn.init?.commands).toEqual([{ command: 'setup', args: [] }]);
    const plain = dagRun('greet-r2')
      .of('greet', 'r2')
      .status({ status: 4, statusLabel: 'succeeded', nodes: [] })
      .build();
    expect('onInit' in runDetails(plain, dag, () => undefined)).toBe(false);
  });

  it('shows the wait handler a run has as onWait in both APIs, and leaves it out of a DAG without one', () => {
    const withWait = loadDag('handler_on: {wait: {run: notify}}\nsteps:\n  - {name: say, run: echo hi}\n', {
      fileName: 'greet',
    }).dag;
    const node = { name: 'onWait', status: 2, statusLabel: 'failed', retryCount: 0, doneCount: 1, attempt: 2 };
    const run = dagRun('greet-r1')
      .of('greet', 'r1')
      .status({ status: 7, statusLabel: 'waiting', nodes: [], waits: 2, onWait: node })
      .build();
    const v2 = runDetails(run, withWait, () => undefined);
    expect([v2.onWait?.status, v1Details(v2).onWait?.step.name]).toEqual([2, 'onWait']);
    expect(v1Dag(dagDetails(withWait)).handlerOn.wait?.commands).toEqual([{ command: 'notify', args: [] }]);
    const plain = dagRun('greet-r2')
      .of('greet', 'r2')
      .status({ status: 4, statusLabel: 'succeeded', nodes: [] })
      .build();
    expect('onWait' in runDetails(plain, dag, () => undefined)).toBe(false);
  });

  it("renames the grid's cancel row", () => {
    expect(
      v1Grid([
        { name: 'say', history: [4] },
        { name: 'onCancel', history: [4] },
      ]).map((r) => r.name),
    ).toEqual(['say', 'onAbort']);
  });

  it('counts a queue and calls a custom queue global, of capacity 1 when it is a DAG-based one', () => {
    const running = dagRun('a-1')
      .of('a', '1')
      .spec({ queue: 'shared' })
      .status({ status: 1, statusLabel: 'running', startedAt: '2026-11-29T00:00:00Z' })
      .build();
    const queued = dagRun('b-1')
      .of('b', '1')
      .status({ status: 5, statusLabel: 'queued', queuedAt: '2026-11-29T00:00:00Z' })
      .build();
    const listed = queues({
      queues: [dagQueue('shared').maxConcurrency(3).build()],
      runs: [running, queued],
      dagQueue: (r) => r.spec.queue ?? runSummary(r).name,
    }).map(v1Queue);
    expect(
      listed.map((q) => [q.name, q.type, q.maxConcurrency, q.runningCount, q.queuedCount, q.running.length]),
    ).toEqual([
      ['shared', 'global', 3, 1, 0, 1],
      ['b', 'dag-based', 1, 0, 1, 0],
    ]);
  });
});

describe("a 2.x approval step in v1's run details", () => {
  const gated = loadDag(
    'steps:\n  - id: review\n    run: echo ready\n    approval: {prompt: Ship?, input: [TICKET, NOTE], required: [TICKET], rewind_to: review}\n  - id: ship\n    depends: [review]\n    run: echo go\n',
    { fileName: 'gated' },
  ).dag;

  it("lists the step's approval config, and the answer on its node", () => {
    const review = {
      name: 'review',
      status: 4,
      statusLabel: 'succeeded',
      approvedAt: '2026-11-29T10:00:00Z',
      approvedBy: 'ana',
      approvalInputs: { TICKET: 'T-1' },
    };
    const run = dagRun('gated-r1')
      .of('gated', 'r1')
      .status({ status: 1, statusLabel: 'running', nodes: [review] })
      .build();
    const [node, ship] = v1Details(runDetails(run, gated, () => undefined)).nodes;
    expect(node?.step.approval).toEqual({
      prompt: 'Ship?',
      input: ['TICKET', 'NOTE'],
      required: ['TICKET'],
      rewindTo: 'review',
    });
    expect([node?.approvedBy, node?.approvedAt, node?.approvalInputs]).toEqual([
      'ana',
      '2026-11-29T10:00:00Z',
      { ticket: 'T-1' },
    ]);
    expect(ship?.step.approval).toBeUndefined();
  });
});
