/**
 * Schedules on the real control plane: a `* * * * *` DAG gets a scheduled run in the minute
 * the scheduler looks, a suspended one gets none, and an operator restarted within the same
 * minute does not start that minute's run a second time. At one later boundary: suspend stops
 * a schedule, stop and restart expressions act on running runs (a restart survives the death
 * of the operator during its wait), and skipIfSuccessful skips a DAG that succeeded today.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minuteOf, scheduledRunId } from '../../operator/schedule/ticks.ts';
import {
  finishedRun,
  givenDag,
  runningStep,
  startOperator,
  stopRun,
  runsOf,
  whenRun,
  type RunningOperator,
} from './operator-support.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';

const { core, kube } = clients();
let ns: string;
let operator: RunningOperator | undefined;

async function suspend(dag: string): Promise<void> {
  await kube.dags.jsonPatch(ns, dag, [
    { op: 'add', path: '/metadata/annotations/kubedag.io~1suspended', value: 'true' },
  ]);
}

/**
 * The next minute boundary, once it is at least `leadMs` away: a nearer one is let pass first,
 * so that every-minute expressions fire at the returned boundary and none before it. Never
 * midnight UTC (skipIfSuccessful counts days).
 */
async function quietBoundary(leadMs: number): Promise<Date> {
  for (;;) {
    const next = minuteOf(new Date(Date.now() + 60_000));
    const midnight = next.getUTCHours() === 0 && next.getUTCMinutes() === 0;
    if (next.getTime() - Date.now() >= leadMs && !midnight) return next;
    await new Promise((resolve) => setTimeout(resolve, next.getTime() - Date.now() + 500));
  }
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
    await suspend('paused');
    const started = Date.now();
    operator = await startOperator(ns);
    await waitFor('a scheduled run', async () => (await runsOf(ns, 'every-minute')).length > 0, 70_000, 200);
    const [first] = await runsOf(ns, 'every-minute');
    const created = new Date(first?.metadata?.creationTimestamp ?? 0);
    // Created in the minute its id names: the first look is at start, later ones at each boundary.
    expect([first?.spec.trigger, first?.spec.dagRunId]).toEqual([
      'schedule',
      scheduledRunId('scheduled', minuteOf(created)),
    ]);
    expect(created.getTime()).toBeGreaterThanOrEqual(minuteOf(new Date(started)).getTime());
    expect((await finishedRun(ns, first?.metadata?.name ?? '')).status?.statusLabel).toBe('succeeded');

    // A restarted operator looks at the current minute again: the same id, so no second run.
    await operator.stop();
    operator = await startOperator(ns);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const ids = (await runsOf(ns, 'every-minute')).map((r) => r.spec.dagRunId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(await runsOf(ns, 'paused')).toEqual([]);
  });

  it('at a boundary: suspend stops a schedule, stop and restart act on running runs, skipIfSuccessful skips', async () => {
    const boundary = await quietBoundary(20_000);
    await suspend('every-minute');
    await givenDag(ns, 'stopper', 'schedule: {stop: "* * * * *"}\nsteps: ["sleep 300"]');
    await givenDag(
      ns,
      'restarter',
      'schedule: {restart: "* * * * *"}\nrestartWaitSec: 10\nparams: [WHO=default]\nsteps: ["echo hello $WHO; sleep 300"]',
    );
    await givenDag(ns, 'skipper', 'schedule: "* * * * *"\nskipIfSuccessful: true\nsteps: [echo ok]');
    await whenRun(ns, 'stopper-1', 'stopper');
    await whenRun(ns, 'restarter-1', 'restarter', { params: 'WHO=kept' });
    await whenRun(ns, 'skipper-1', 'skipper');
    await runningStep(ns, 'stopper-1', 'cmd_1');
    await runningStep(ns, 'restarter-1', 'cmd_1');
    expect((await finishedRun(ns, 'skipper-1')).status?.statusLabel).toBe('succeeded');
    expect(Date.now()).toBeLessThan(boundary.getTime());

    // The restart tick stops restarter-1 and promises its successor 10 s later; the operator
    // dies in between, after the stop is done, so a new leader that evaluates the minute again
    // sees nothing running: only the promise on restarter-1 can bring the new run.
    await waitFor(
      'the restart tick',
      async () =>
        (await runsOf(ns, 'restarter')).some(
          (r) => r.metadata?.annotations?.['kubedag.io/restart-run-id'] !== undefined,
        ),
      boundary.getTime() - Date.now() + 20_000,
      100,
    );
    expect((await finishedRun(ns, 'restarter-1', 8000)).status?.statusLabel).toBe('canceled');
    await operator?.stop('SIGKILL');
    expect((await runsOf(ns, 'restarter')).length).toBe(1);
    operator = await startOperator(ns);

    const restartId = scheduledRunId('restart', boundary);
    await waitFor(
      `the ${restartId} run`,
      async () => (await runsOf(ns, 'restarter')).some((r) => r.spec.dagRunId === restartId),
      30_000,
      200,
    );
    const restarted = (await runsOf(ns, 'restarter')).find((r) => r.spec.dagRunId === restartId);
    expect([restarted?.spec.trigger, restarted?.spec.params]).toEqual(['restart', 'WHO=kept']);
    expect(Date.parse(String(restarted?.metadata?.creationTimestamp))).toBeGreaterThanOrEqual(
      boundary.getTime() + 10_000,
    );
    await waitFor(
      'the kept promise to be cleared',
      async () =>
        (await runsOf(ns, 'restarter')).every(
          (r) => r.metadata?.annotations?.['kubedag.io/restart-run-id'] === undefined,
        ),
      10_000,
      100,
    );
    expect((await finishedRun(ns, 'stopper-1')).status?.statusLabel).toBe('canceled');
    expect((await runsOf(ns, 'restarter')).length).toBe(2);
    // Nothing scheduled at the boundary: suspended, skipped (succeeded today), or stop-only.
    expect((await runsOf(ns, 'skipper')).map((r) => r.metadata?.name)).toEqual(['skipper-1']);
    expect((await runsOf(ns, 'stopper')).map((r) => r.metadata?.name)).toEqual(['stopper-1']);
    expect(
      (await runsOf(ns, 'every-minute')).some((r) => r.spec.dagRunId === scheduledRunId('scheduled', boundary)),
    ).toBe(false);
    await stopRun(ns, restarted?.metadata?.name ?? '');
  }, 180_000);
});
