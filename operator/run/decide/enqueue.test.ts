import { describe, expect, it } from 'vitest';
import type { DagRunStatus, RunNode } from '../../../core/resources/schemas.ts';
import { StepStatus } from '../../../core/resources/status.ts';
import { dagOf, input, RUN } from '../../../test/builders/run-engine.ts';
import { enqueuedRun, isEnqueue, withEnqueued } from './enqueue.ts';
import { subRunId } from './children.ts';
import { nextBatch } from './enqueue-items.ts';
import { decide, type Decision, type Launch, type RunInput } from './engine.ts';

const dag = dagOf(
  'steps:\n  - {id: kick, action: dag.enqueue, with: {dag: child, queue: slow}}\n  - {id: wait, action: dag.run, with: {dag: child}}\n',
).dag;
const [kick, wait] = dag.steps;
function launch(attempt: number): Launch {
  if (kick === undefined) throw new Error('the scenario has no enqueue step');
  return { step: kick, attempt, pod: 'p' };
}
const now = new Date('2026-11-29T13:00:00Z');

describe('dag.enqueue steps', () => {
  it('are the enqueue steps only, not the sub-DAG calls that wait', () => {
    expect([kick, wait].map((step) => step !== undefined && isEnqueue(step))).toEqual([true, false]);
  });

  it('queue a root run of the called DAG whose name and id are the same however often it is made', () => {
    const input = { namespace: 'ns', parentRunId: 'parent-1', params: 'A=1' };
    const run = enqueuedRun(launch(0), input);
    expect(enqueuedRun(launch(0), input)).toEqual(run);
    expect(run.spec).toMatchObject({
      dagRef: { name: 'child' },
      dagName: 'child',
      params: 'A=1',
      queue: 'slow',
      enqueue: true,
    });
    expect(run.spec.parent).toBeUndefined();
    expect(run.metadata?.ownerReferences).toBeUndefined();
    expect(enqueuedRun(launch(1), input).spec.dagRunId).not.toBe(run.spec.dagRunId);
  });

  it('end their running attempt succeeded once the run exists, and leave another attempt alone', () => {
    const running: RunNode = {
      name: 'kick',
      status: StepStatus.Running,
      statusLabel: 'running',
      attempt: 0,
    };
    const status = { nodes: [running] };
    const [done] = withEnqueued(status, [launch(0)], now, 'parent-1').nodes ?? [];
    expect([done?.status, done?.finishedAt]).toEqual([StepStatus.Succeeded, now.toISOString()]);
    expect(withEnqueued(status, [launch(1)], now, 'parent-1').nodes).toEqual([running]);
  });

  describe('over parallel items', () => {
    const yaml = (items: string): string =>
      `params: [LIST=x]\nsteps:\n  - {id: kick, action: dag.enqueue, with: {dag: child, params: "N=\${ITEM}"}, parallel: ${items}}\n`;
    const fanned = (items: string, status: DagRunStatus = {}, extra: Partial<RunInput> = {}): Decision =>
      decide(input(dagOf(yaml(items)), status, [], now, extra));
    const kickOf = (status: DagRunStatus): RunNode | undefined => status.nodes?.find((n) => n.name === 'kick');
    /** What act writes after the decision's creates all succeeded. */
    const written = (decision: Decision): DagRunStatus =>
      withEnqueued(decision.status, decision.launch, now, RUN.dagRunId);
    const idOf = (index: number, attempt = 0): string => subRunId(RUN.dagRunId, `kick[${String(index)}]`, attempt);

    it('queue one run per item, whatever max_concurrent says, each named by the attempt and its index', () => {
      const decision = fanned('{items: [a, b, c], max_concurrent: 1}');
      const runs = decision.launch.map((l) =>
        enqueuedRun(l, { namespace: 'ns', parentRunId: RUN.dagRunId, params: `N=${String(l.item?.value)}` }),
      );
      expect(runs.map((r) => [r.spec.params, r.spec.enqueue, r.spec.parent, r.spec.dagRunId])).toEqual(
        ['a', 'b', 'c'].map((item, index) => [`N=${item}`, true, undefined, idOf(index)]),
      );
      expect(new Set(runs.map((r) => r.metadata?.name)).size).toBe(3);
      // The same decision again (an operator that restarted before its write) names the same runs.
      expect(
        fanned('{items: [a, b, c], max_concurrent: 1}').launch.map(
          (l) => enqueuedRun(l, { namespace: 'ns', parentRunId: RUN.dagRunId }).metadata?.name,
        ),
      ).toEqual(runs.map((r) => r.metadata?.name));
    });

    it('end the step succeeded in the write that queued the last run, naming every run in item order', () => {
      const decision = fanned('[a, b]');
      expect([kickOf(decision.status)?.status, kickOf(decision.status)?.subRuns]).toEqual([
        StepStatus.Running,
        undefined,
      ]);
      const kick = kickOf(written(decision));
      expect([kick?.status, kick?.subRuns, kick?.attempts?.map((a) => a.status)]).toEqual([
        StepStatus.Succeeded,
        [{ dagRunId: idOf(0) }, { dagRunId: idOf(1) }],
        [StepStatus.Succeeded],
      ]);
    });

    it('create at most one batch per reconcile, ask for the next at once, and end after the last', () => {
      const items = '[a, b, c, d, e]';
      const batches: (number | undefined)[][] = [];
      let status: DagRunStatus = {};
      const progress: (number | undefined)[] = [];
      for (let round = 0; round < 5 && kickOf(status)?.status !== StepStatus.Succeeded; round++) {
        const decision = fanned(items, status, { enqueueBatch: 2 });
        batches.push(decision.launch.map((l) => l.item?.index));
        expect(decision.requeueAfterMs).toBe(decision.launch.some((l) => l.endsStep === true) ? undefined : 0);
        status = written(decision);
        progress.push(kickOf(status)?.subRuns?.length);
      }
      expect([batches, progress]).toEqual([
        [[0, 1], [2, 3], [4]],
        [2, 4, 5],
      ]);
      expect([kickOf(status)?.status, kickOf(status)?.subRuns]).toEqual([
        StepStatus.Succeeded,
        [0, 1, 2, 3, 4].map((i) => ({ dagRunId: idOf(i) })),
      ]);
    });

    it('repeat the same batch when its write was lost, and cancel the step on a stop with the runs queued so far kept', () => {
      const first = written(fanned('[a, b, c, d, e]', {}, { enqueueBatch: 2 }));
      const again = fanned('[a, b, c, d, e]', first, { enqueueBatch: 2 });
      expect(again.launch.map((l) => l.item?.index)).toEqual([2, 3]);
      expect(fanned('[a, b, c, d, e]', first, { enqueueBatch: 2 }).launch).toEqual(again.launch);
      const stopped = fanned('[a, b, c, d, e]', first, { enqueueBatch: 2, stop: true });
      expect([stopped.launch, kickOf(stopped.status)?.status, kickOf(stopped.status)?.error]).toEqual([
        [],
        StepStatus.Canceled,
        'stopped after 2 of its runs were enqueued',
      ]);
      expect(kickOf(stopped.status)?.subRuns).toEqual([{ dagRunId: idOf(0) }, { dagRunId: idOf(1) }]);
    });

    it('go on in batches as an exit handler too, and the run ends once the last batch is queued', () => {
      const handled = dagOf(
        'steps:\n  - {id: s, run: "true", preconditions: [{condition: "a", expected: "b"}]}\nhandler_on:\n  exit: {action: dag.enqueue, with: {dag: child}, parallel: [a, b, c]}\n',
      );
      const rounds: [(number | undefined)[], string | undefined, string | undefined][] = [];
      let status: DagRunStatus = {};
      for (let round = 0; round < 3; round++) {
        const decision = decide(input(handled, status, [], now, { enqueueBatch: 2 }));
        status = written(decision);
        rounds.push([
          decision.launch.map((l) => l.item?.index),
          status.onExit?.statusLabel,
          decision.status.statusLabel,
        ]);
      }
      expect(rounds).toEqual([
        [[0, 1], 'running', 'running'],
        [[2], 'succeeded', 'running'],
        [[], 'succeeded', 'succeeded'],
      ]);
      expect(status.onExit?.subRuns?.length).toBe(3);
    });

    const many = Array.from({ length: 1001 }, (_, i) => String(i)).join(' ');
    it.each([
      ['are none', '"${LIST_EMPTY}"', 'no sub DAG runs to enqueue'],
      [
        'are more than a parallel step may have',
        `"${many}"`,
        'parallel has 1001 items; at most 1000 runs are enqueued by one step',
      ],
    ])('fail the step before queueing anything when the items %s', (_name, items, error) => {
      const decision = fanned(items);
      expect(decision.launch).toEqual([]);
      expect([kickOf(decision.status)?.status, kickOf(decision.status)?.error]).toEqual([StepStatus.Failed, error]);
    });
  });

  describe('the next batch', () => {
    const ids = ['a', 'b', 'c', 'd', 'e'];
    it.each([
      ['none enqueued: the first ones', [], 2, [0, 1], false],
      ['some enqueued: the ones after them', ['a', 'b'], 2, [2, 3], false],
      ['the rest fit: the last batch', ['a', 'b', 'c'], 2, [3, 4], true],
      ['ids recorded out of order still count', ['c', 'a'], 2, [1, 3], false],
      ['ids of no item are ignored', ['z'], 5, [0, 1, 2, 3, 4], true],
      ['all enqueued: nothing, and last', ids, 2, [], true],
      ['a size under one still makes progress', [], 0, [0], false],
    ])('%s', (_name, enqueued, size, batch, last) => {
      expect(nextBatch(ids, enqueued, size)).toEqual({ batch, last });
    });
  });
});
