/**
 * Dagu 2.x's `dag.enqueue` on the local control plane (issue 26): the operator itself queues a
 * root run of the called DAG and ends the step without waiting; the queued run then goes
 * through the queue and runs with the step's params. A run an earlier operator queued before it
 * could end the step is found, not queued twice. Over `parallel` items, one run per item, in
 * batches of at most `--enqueue-batch` per reconcile, each found again rather than queued twice.
 */
import { Watch } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { DagRunResource } from '../../core/resources/types.ts';
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

/** The fan step's status and runs queued so far in each version of the run written while `work` runs. */
async function fanProgress<T>(name: string, work: () => Promise<T>): Promise<{ result: T; seen: string[] }> {
  const { kc, kube } = clients();
  const seen: string[] = [];
  const watch = await new Watch(kc).watch(
    kube.runs.path(ns),
    { fieldSelector: `metadata.name=${name}` },
    (_type: string, run: DagRunResource) => {
      const fan = run.status?.nodes?.find((n) => n.name === 'fan');
      const at = `${fan?.statusLabel ?? ''} ${String(fan?.subRuns?.length ?? 0)}`;
      if (fan !== undefined && seen.at(-1) !== at) seen.push(at);
    },
    () => undefined,
  );
  try {
    return { result: await work(), seen };
  } finally {
    watch.abort();
  }
}

let ns = '';
let operator: RunningOperator;
// Two runs per reconcile: a step over three items takes two batches (enqueue-items.ts).
withOperatorNamespace('enqueue', (made) => ({ ns, operator } = made), ['--enqueue-batch=2']);

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

  it('queues one run per parallel item in batches, each with its item, and finds the items an earlier operator queued', async () => {
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
    const written = await fanProgress('fanner-1', async () => {
      await whenRun(ns, 'fanner-1', 'fanner', { dagRunId: 'f1' });
      return finishedRun(ns, 'fanner-1', 120_000);
    });
    const parent = written.result;
    // One batch of two (one of them found), written with the step still running; then the last.
    expect(written.seen).toEqual(['running 2', 'succeeded 3']);
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
