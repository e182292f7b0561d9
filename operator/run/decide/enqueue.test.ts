import { describe, expect, it } from 'vitest';
import type { RunNode } from '../../../core/resources/schemas.ts';
import { StepStatus } from '../../../core/resources/status.ts';
import { dagOf } from '../../../test/builders/run-engine.ts';
import { enqueuedRun, isEnqueue, withEnqueued } from './enqueue.ts';
import type { Launch } from './engine.ts';

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
});
