/**
 * Dagu 2.x's `dag.enqueue` on the local control plane (issue 26): the operator itself queues a
 * root run of the called DAG and ends the step without waiting; the queued run then goes
 * through the queue and runs with the step's params. A run an earlier operator queued before it
 * could end the step is found, not queued twice. Over `parallel` items, one run per item, each
 * found again rather than queued twice.
 */
import { describe, expect, it } from 'vitest';
import { dagRunResourceName } from '../../core/resources/names.ts';
import { subRunId } from '../../operator/run/decide/children.ts';
import { clients } from './support.ts';
import {
  finishedRun,
  givenDag,
  runsOf,
  stepLog,
  stepStates,
  whenRun,
  type RunningOperator,
  withOperatorNamespace,
} from './operator-support.ts';

let ns = '';
let operator: RunningOperator;
withOperatorNamespace('enqueue', (made) => ({ ns, operator } = made));

describe('a Dagu 2.x dag.enqueue step', () => {
  it('queues a run of the called DAG, ends without waiting for it, and the run then runs with its params', async () => {
    await givenDag(
      ns,
      'worker',
      `
params: "NAME=nobody"
steps:
  - id: greet
    run: echo "hi $NAME"
`,
    );
    await givenDag(
      ns,
      'kicker',
      `
type: chain
steps:
  - id: kick
    action: dag.enqueue
    with: {dag: worker, params: "NAME=kicker"}
  - id: after
    run: echo queued
`,
    );
    await whenRun(ns, 'kicker-1', 'kicker');
    const parent = await finishedRun(ns, 'kicker-1', 120_000);
    expect([parent.status?.statusLabel, stepStates(parent)]).toEqual([
      'succeeded',
      { kick: 'succeeded', after: 'succeeded' },
    ]);
    const queuedId = parent.status?.nodes?.find((n) => n.name === 'kick')?.subRuns?.[0]?.dagRunId ?? '';
    const queued = await finishedRun(ns, dagRunResourceName('worker', queuedId), 120_000);
    expect([
      queued.spec.dagName,
      queued.spec.enqueue,
      queued.spec.parent,
      queued.metadata?.ownerReferences,
      queued.status?.statusLabel,
      queued.status?.queuedAt === undefined,
    ]).toEqual(['worker', true, undefined, undefined, 'succeeded', false]);
    expect(await stepLog(operator, queued, 'greet')).toBe('hi kicker\n');
  });

  it('finds the run an earlier operator queued before it could end the step, and queues no second one', async () => {
    // What an operator killed between the create and the status write leaves behind: the run of
    // this very attempt exists, the step does not say so yet.
    const dagRunId = subRunId('k2', 'kick', 0);
    await clients().kube.runs.create(ns, {
      metadata: { name: dagRunResourceName('worker', dagRunId), namespace: ns },
      spec: { dagRef: { name: 'worker' }, dagName: 'worker', dagRunId, params: 'NAME=earlier', enqueue: true },
    });
    await whenRun(ns, 'kicker-2', 'kicker', { dagRunId: 'k2' });
    const parent = await finishedRun(ns, 'kicker-2', 120_000);
    expect([stepStates(parent), parent.status?.nodes?.[0]?.subRuns]).toEqual([
      { kick: 'succeeded', after: 'succeeded' },
      [{ dagRunId }],
    ]);
    // The first test's run and this one: the step's create found the existing run.
    const runs = await runsOf(ns, 'worker');
    expect([runs.length, runs.find((r) => r.spec.dagRunId === dagRunId)?.spec.params]).toEqual([2, 'NAME=earlier']);
  });

  it('queues one run per parallel item, each with its item, and finds the items an earlier operator queued', async () => {
    // One item's run exists already, as an operator killed between its creates and the status write leaves it.
    const earlier = subRunId('f1', 'fan[1]', 0);
    await clients().kube.runs.create(ns, {
      metadata: { name: dagRunResourceName('worker', earlier), namespace: ns },
      spec: { dagRef: { name: 'worker' }, dagName: 'worker', dagRunId: earlier, params: 'NAME=earlier', enqueue: true },
    });
    await givenDag(
      ns,
      'fanner',
      `
steps:
  - id: fan
    action: dag.enqueue
    with: {dag: worker, params: "NAME=\${ITEM}"}
    parallel: {items: [ann, bob, cy], max_concurrent: 1}
`,
    );
    await whenRun(ns, 'fanner-1', 'fanner', { dagRunId: 'f1' });
    const parent = await finishedRun(ns, 'fanner-1', 120_000);
    const ids = [0, 1, 2].map((i) => subRunId('f1', `fan[${String(i)}]`, 0));
    expect([stepStates(parent), parent.status?.nodes?.[0]?.subRuns]).toEqual([
      { fan: 'succeeded' },
      ids.map((dagRunId) => ({ dagRunId })),
    ]);
    const logs = await Promise.all(
      ids.map(async (id) =>
        stepLog(operator, await finishedRun(ns, dagRunResourceName('worker', id), 120_000), 'greet'),
      ),
    );
    expect(logs).toEqual(['hi ann\n', 'hi earlier\n', 'hi cy\n']);
    // Two runs of the tests above, and one per item: none twice.
    expect((await runsOf(ns, 'worker')).length).toBe(5);
  });
});
