/**
 * The reduced variant of `make bench-scale` (issue 23): behaviours of a big run that hold on
 * today's model, one status object per run, asserted without timings. 300 steps keep it to
 * about a minute here and stay well below the size (~3,300 steps) where etcd refuses the
 * object; the benchmark measures the sizes past it.
 */
import { Watch } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DagRunResource } from '../../core/resources/types.ts';
import { bigDagYaml } from '../../bench/scale-runs.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';
import { finishedRun, getRun, givenDag, startOperator, stepStates, stopRun, whenRun, type RunningOperator } from './operator-support.ts';

const { kc, core, kube } = clients();
let ns = '';
let operator: RunningOperator;

beforeAll(async () => {
  ns = await createNamespace(core, 'bigrun');
  operator = await startOperator(ns);
});

afterAll(async () => {
  await operator.stop();
  await deleteNamespace(core, ns);
});

/** The budget for any object that changes while a run runs. */
const OBJECT_BUDGET = 256 * 1024;
const STEPS = 300;

/** The largest version of one DAGRun seen while `work` runs, as JSON bytes. */
async function largestVersionWhile(name: string, work: () => Promise<unknown>): Promise<number> {
  let largest = 0;
  const abort = await new Watch(kc).watch(kube.runs.path(ns), { fieldSelector: `metadata.name=${name}` }, (_type, run: DagRunResource) => {
    largest = Math.max(largest, Buffer.byteLength(JSON.stringify(run)));
  }, () => undefined);
  try {
    await work();
  } finally {
    abort.abort();
  }
  return largest;
}

describe(`a graph run of ${String(STEPS)} independent steps`, () => {
  it('finishes with every step succeeded, its definition frozen, and no version of its DAGRun over 256 KiB', async () => {
    await givenDag(ns, 'wide', bigDagYaml('graph', STEPS));
    let done: DagRunResource | undefined;
    const largest = await largestVersionWhile('wide-run', async () => {
      await whenRun(ns, 'wide-run', 'wide');
      done = await finishedRun(ns, 'wide-run', 180_000);
    });
    expect(done?.status?.statusLabel).toBe('succeeded');
    expect(Object.values(stepStates(done as DagRunResource)).filter((s) => s === 'succeeded')).toHaveLength(STEPS);
    expect((done?.spec.snapshot as { steps?: unknown[] } | undefined)?.steps).toHaveLength(STEPS);
    expect(largest).toBeGreaterThan(0);
    expect(largest).toBeLessThan(OBJECT_BUDGET);
  }, 200_000);

  it('ends on stop while many of its steps run, leaving none running', async () => {
    const yaml = bigDagYaml('graph', STEPS).replace('maxActiveSteps: 100', 'maxActiveSteps: 20').replaceAll('command: "true"', 'command: "sleep 60"');
    await givenDag(ns, 'wide-sleepy', yaml);
    await whenRun(ns, 'wide-sleepy-run', 'wide-sleepy');
    await waitFor('steps of wide-sleepy-run to run', async () => Object.values(stepStates(await getRun(ns, 'wide-sleepy-run'))).filter((s) => s === 'running').length >= 5, 60_000, 250);
    await stopRun(ns, 'wide-sleepy-run');
    const done = await finishedRun(ns, 'wide-sleepy-run', 60_000);
    expect(done.status?.statusLabel).toBe('canceled');
    const states = Object.values(stepStates(done));
    expect(states.filter((s) => s === 'running')).toEqual([]);
    expect(states.filter((s) => s === 'canceled').length).toBeGreaterThan(0);
  }, 120_000);
});
