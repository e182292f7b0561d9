/**
 * Schedules on the real control plane: a `* * * * *` DAG gets a scheduled run in the minute
 * the scheduler looks, a suspended one gets none, and an operator restarted within the same
 * minute does not start that minute's run a second time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DagRunResource } from '../../core/resources/types.ts';
import { minuteOf, scheduledRunId } from '../../operator/schedule/ticks.ts';
import { finishedRun, givenDag, startOperator, type RunningOperator } from './operator-support.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';

const { core, custom } = clients();
let ns: string;
let operator: RunningOperator | undefined;

async function runsOf(dagName: string): Promise<DagRunResource[]> {
  const list = (await custom.listNamespacedCustomObject({ group: 'kubedag.io', version: 'v1alpha1', namespace: ns, plural: 'dagruns' })) as { items: DagRunResource[] };
  return list.items.filter((r) => r.spec.dagName === dagName);
}

beforeAll(async () => {
  ns = await createNamespace(core, 'kd-sched');
});

afterAll(async () => {
  await operator?.stop();
  await deleteNamespace(core, ns);
});

describe('the scheduler', () => {
  it('starts a scheduled run in its minute, none for a suspended DAG, and never twice for one minute', async () => {
    await givenDag(ns, 'every-minute', 'schedule: "* * * * *"\nsteps: [echo tick]');
    await givenDag(ns, 'paused', 'schedule: "* * * * *"\nsteps: [echo tick]');
    await custom.patchNamespacedCustomObject({ group: 'kubedag.io', version: 'v1alpha1', namespace: ns, plural: 'dags', name: 'paused', body: [{ op: 'add', path: '/metadata/annotations/kubedag.io~1suspended', value: 'true' }] });
    const started = Date.now();
    operator = await startOperator(ns);
    await waitFor('a scheduled run', async () => (await runsOf('every-minute')).length > 0, 70_000, 200);
    const [first] = await runsOf('every-minute');
    const created = new Date(first?.metadata?.creationTimestamp ?? 0);
    // Created in the minute its id names: the first look is at start, later ones at each boundary.
    expect([first?.spec.trigger, first?.spec.dagRunId]).toEqual(['schedule', scheduledRunId('scheduled', minuteOf(created))]);
    expect(created.getTime()).toBeGreaterThanOrEqual(minuteOf(new Date(started)).getTime());
    expect((await finishedRun(ns, first?.metadata?.name ?? '')).status?.statusLabel).toBe('succeeded');

    // A restarted operator looks at the current minute again: the same id, so no second run.
    await operator.stop();
    operator = await startOperator(ns);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const ids = (await runsOf('every-minute')).map((r) => r.spec.dagRunId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(await runsOf('paused')).toEqual([]);
  });
});
