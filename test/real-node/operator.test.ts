/**
 * The operator (from the sources, on the host, through the loopback port that leads into the
 * node's namespace) runs DAGs on the real node, its default step image the busybox image built
 * here: a chain of steps runs as Pods under containerd and runc, in order, with their logs in the
 * operator's log store, the next step's Pod created once the last one's container has ended (not
 * a second later, when the kubelet has stopped the sandbox and made the Pod's phase terminal), and a
 * stop reaches the step's process in its container. The chain's duration and its step gaps, seen
 * from the API (a step's container terminated -> the next step's Pod created -> that Pod's
 * container running; the container terminated -> its Pod's phase terminal) join
 * .dev/real-node-figures.json, with the rate of single-step runs created at once.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Watch, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STEP_IMAGE } from '../../cluster/real-node/images.ts';
import { stepPodName } from '../../core/resources/names.ts';
import { clients, createNamespace, deleteNamespace, running, waitForPod } from '../integration/support.ts';
import {
  finishedRun,
  givenDag,
  runningStep,
  startOperator,
  stepLog,
  stepStates,
  stopRun,
  whenRun,
  type RunningOperator,
} from '../integration/operator-support.ts';

const { kc, core } = clients();
let ns = '';
let operator: RunningOperator;
let watch: { abort: () => void } | undefined;
const FIGURES = join(import.meta.dirname, '../../.dev/real-node-figures.json');
const STEPS = 5;
/** Single-step runs created at once: a small throughput figure (make bench-operator runs 150 on node agents). */
const RUNS = 20;

/** When this process first saw each step's Pod created, its container running, and terminated. */
const seen = new Map<string, { created?: number; running?: number; terminated?: number; phase?: number }>();

/** What the Pod shows now, as marks of `seen`. */
function marks(pod: V1Pod): ('running' | 'terminated' | 'phase')[] {
  const state = pod.status?.containerStatuses?.[0]?.state ?? {};
  const terminal = pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
  return [
    ...(state.running !== undefined || state.terminated !== undefined ? (['running'] as const) : []),
    ...(state.terminated === undefined ? [] : (['terminated'] as const)),
    ...(terminal ? (['phase'] as const) : []),
  ];
}

function record(pod: V1Pod): void {
  const step = pod.metadata?.annotations?.['kubedag.io/step-name'];
  if (step === undefined) return;
  const at = seen.get(step) ?? {};
  const now = Date.now();
  at.created ??= now;
  for (const mark of marks(pod)) at[mark] ??= now;
  seen.set(step, at);
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

beforeAll(async () => {
  ns = await createNamespace(core, 'rn-operator');
  watch = await new Watch(kc).watch(
    `/api/v1/namespaces/${ns}/pods`,
    {},
    (_type: string, pod: V1Pod) => {
      record(pod);
    },
    () => undefined,
  );
  operator = await startOperator(ns, undefined, [`--default-step-image=${STEP_IMAGE}`]);
});

afterAll(async () => {
  watch?.abort();
  await operator.stop();
  await deleteNamespace(core, ns);
});

describe('the operator on a real node', () => {
  it(`runs a chain of ${String(STEPS)} steps as Pods of the busybox image, in order, with their logs, each next Pod created before the last one's phase is terminal`, async () => {
    const steps = Array.from(
      { length: STEPS },
      (_, i) =>
        `  - name: s${String(i)}\n    command: echo step ${String(i)} on $(hostname)\n${i === 0 ? '' : `    depends: s${String(i - 1)}\n`}`,
    );
    await givenDag(ns, 'chain', `steps:\n${steps.join('')}`);
    const started = Date.now();
    await whenRun(ns, 'chain-1', 'chain');
    const run = await finishedRun(ns, 'chain-1', 180_000);
    const took = Date.now() - started;
    expect(run.status?.statusLabel).toBe('succeeded');
    expect(Object.values(stepStates(run))).toEqual(Array(STEPS).fill('succeeded'));
    expect(await stepLog(operator, run, 's0')).toMatch(/^step 0 on chain-1-s0/);
    expect(await stepLog(operator, run, `s${String(STEPS - 1)}`)).toMatch(new RegExp(`^step ${String(STEPS - 1)} on `));
    const order = Array.from({ length: STEPS }, (_, i) => seen.get(`s${String(i)}`) ?? {});
    const gaps = order.slice(1).map((next, i) => (next.created ?? Number.NaN) - (order[i]?.terminated ?? Number.NaN));
    const starts = order.map((at) => (at.running ?? Number.NaN) - (at.created ?? Number.NaN));
    // The kubelet reports a container terminated before the Pod's phase: the phase waits for the sandbox's stop.
    const toPhase = order.map((at) => (at.phase ?? Number.NaN) - (at.terminated ?? Number.NaN)).filter(Number.isFinite);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(0);
    // The operator acts on the container's end: the next Pod comes before the last one's phase would.
    expect(toPhase.length).toBeGreaterThan(0);
    expect(median(gaps)).toBeLessThan(median(toPhase));
    const chain = {
      chainSteps: STEPS,
      chainRunMs: took,
      chainGapMedianMs: median(gaps),
      chainGapsMs: gaps,
      stepPodCreatedToRunningMedianMs: median(starts),
      terminatedToPhaseMedianMs: median(toPhase),
    };
    const figures = JSON.parse(await readFile(FIGURES, 'utf8').catch(() => '{}')) as Record<string, unknown>;
    await writeFile(FIGURES, `${JSON.stringify({ ...figures, ...chain }, null, 2)}\n`);
    process.stderr.write(`[real-node] chain: ${JSON.stringify(chain)}\n`);
  });

  it('stops a running run: the signal reaches the process in the container, the cancel handler runs', async () => {
    await givenDag(
      ns,
      'stoppable',
      'maxCleanUpTimeSec: 10\nsteps:\n  - "trap \'echo got-term; exit 0\' TERM; while :; do sleep 0.1; done"\n  - echo never\nhandlerOn: {cancel: {command: echo canceled}}',
    );
    await whenRun(ns, 'stoppable-run', 'stoppable');
    await runningStep(ns, 'stoppable-run', 'cmd_1', 60_000);
    // The process runs once the container does; a Pod still starting would be deleted, not signalled.
    await waitForPod(
      core,
      { namespace: ns, name: stepPodName('stoppable-run', 'cmd_1', 0) },
      'the step process',
      running,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    await stopRun(ns, 'stoppable-run');
    const done = await finishedRun(ns, 'stoppable-run', 60_000);
    expect([done.status?.statusLabel, done.status?.onCancel?.statusLabel]).toEqual(['canceled', 'succeeded']);
    expect(await stepLog(operator, done, 'cmd_1')).toBe('got-term\n');
  });

  it(`runs ${String(RUNS)} single-step runs created at once`, async () => {
    await givenDag(ns, 'single', 'steps:\n  - echo single\n');
    const names = Array.from({ length: RUNS }, (_, i) => `single-${String(i)}`);
    const started = Date.now();
    await Promise.all(names.map((name) => whenRun(ns, name, 'single')));
    const runs = await Promise.all(names.map((name) => finishedRun(ns, name, 180_000)));
    const perMinute = Math.round(RUNS / ((Date.now() - started) / 60_000));
    expect(runs.map((r) => r.status?.statusLabel)).toEqual(Array(RUNS).fill('succeeded'));
    const figures = JSON.parse(await readFile(FIGURES, 'utf8').catch(() => '{}')) as Record<string, unknown>;
    await writeFile(
      FIGURES,
      `${JSON.stringify({ ...figures, singleStepRuns: RUNS, singleStepRunsPerMinute: perMinute }, null, 2)}\n`,
    );
    process.stderr.write(`[real-node] ${String(RUNS)} single-step runs at once: ${String(perMinute)} runs/min\n`);
  });
});
