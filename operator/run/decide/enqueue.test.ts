import { describe, expect, it } from 'vitest';
import type { RunNode } from '../../../core/resources/schemas.ts';
import { StepStatus } from '../../../core/resources/status.ts';
import { dagOf, input, RUN } from '../../../test/builders/run-engine.ts';
import { enqueuedRun, isEnqueue, withEnqueued } from './enqueue.ts';
import { decide, type Launch } from './engine.ts';

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
    const [done] = withEnqueued(status, [launch(0)], now).nodes ?? [];
    expect([done?.status, done?.finishedAt]).toEqual([StepStatus.Succeeded, now.toISOString()]);
    expect(withEnqueued(status, [launch(1)], now).nodes).toEqual([running]);
  });

  describe('over parallel items', () => {
    const fanned = (items: string): ReturnType<typeof decide> =>
      decide(
        input(
          dagOf(
            `params: [LIST=x]\nsteps:\n  - {id: kick, action: dag.enqueue, with: {dag: child, params: "N=\${ITEM}"}, parallel: ${items}}\n`,
          ),
          {},
          [],
          now,
        ),
      );
    const kickOf = (decision: ReturnType<typeof decide>): RunNode | undefined =>
      decision.status.nodes?.find((n) => n.name === 'kick');

    it('queue one run per item at once, whatever max_concurrent says, each named by the attempt and its index', () => {
      const decision = fanned('{items: [a, b, c], max_concurrent: 1}');
      const runs = decision.launch.map((l) =>
        enqueuedRun(l, { namespace: 'ns', parentRunId: RUN.dagRunId, params: `N=${String(l.item?.value)}` }),
      );
      expect(runs.map((r) => [r.spec.params, r.spec.enqueue, r.spec.parent])).toEqual([
        ['N=a', true, undefined],
        ['N=b', true, undefined],
        ['N=c', true, undefined],
      ]);
      expect(new Set(runs.map((r) => r.metadata?.name)).size).toBe(3);
      // The same decision again (an operator that restarted before its write) names the same runs.
      expect(
        fanned('{items: [a, b, c], max_concurrent: 1}').launch.map(
          (l) => enqueuedRun(l, { namespace: 'ns', parentRunId: RUN.dagRunId }).metadata?.name,
        ),
      ).toEqual(runs.map((r) => r.metadata?.name));
      expect(kickOf(decision)?.subRuns).toEqual(runs.map((r) => ({ dagRunId: r.spec.dagRunId })));
    });

    it('end the step succeeded in the write that queued every run', () => {
      const decision = fanned('[a, b]');
      expect(kickOf(decision)?.status).toBe(StepStatus.Running);
      const written = withEnqueued(decision.status, decision.launch, now);
      const kick = written.nodes?.find((n) => n.name === 'kick');
      expect([kick?.status, kick?.subRuns?.length, kick?.attempts?.map((a) => a.status)]).toEqual([
        StepStatus.Succeeded,
        2,
        [StepStatus.Succeeded],
      ]);
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
      expect([kickOf(decision)?.status, kickOf(decision)?.error]).toEqual([StepStatus.Failed, error]);
    });
  });
});
