/**
 * Queues under load on the real control plane: what ran at once is read from the node
 * agents' ledgers (processes), not from run statuses.
 */
import { describe, expect, it } from 'vitest';
import { loadDag } from '../../core/dag/index.ts';
import { dagManifest } from '../../core/resources/dag.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import {
  finishedRun,
  givenDag,
  peakConcurrency,
  startOperator,
  whenRun,
  type RunningOperator,
  withOperatorNamespace,
} from './operator-support.ts';
import { dagQueue } from '../builders/dag-queue.ts';
import { dagRun } from '../builders/dag-run.ts';
import { clients } from './support.ts';

const { kube } = clients();
let ns = '';
let operator: RunningOperator;
withOperatorNamespace('kd-queues', (made) => ({ ns, operator } = made));

const enqueue = (name: string, dag: string): Promise<void> => whenRun(ns, name, dag, { enqueue: true });

async function allFinished(names: readonly string[]): Promise<DagRunResource[]> {
  return Promise.all(names.map((name) => finishedRun(ns, name, 120_000)));
}

describe('queued runs', () => {
  it('runs 50 enqueued runs of a DAG with maxActiveRuns 3, never more than 3 at once', async () => {
    // Each run sleeps long enough that three overlap even on a loaded machine (0.3 s did not, under CI load).
    await givenDag(ns, 'three', 'maxActiveRuns: 3\nsteps: ["sleep 1"]');
    const names = Array.from({ length: 50 }, (_, i) => `three-${String(i).padStart(2, '0')}`);
    await Promise.all(names.map((name) => enqueue(name, 'three')));
    const done = await allFinished(names);
    expect(done.map((r) => r.status?.statusLabel)).toEqual(names.map(() => 'succeeded'));
    expect(done.every((r) => r.status?.queuedAt !== undefined)).toBe(true);
    expect(peakConcurrency(ns, (pod) => pod.startsWith('three-'))).toBe(3);
  });

  it('shares a DAGQueue with maxConcurrency 1 between two DAGs: never two runs at once', async () => {
    await kube.queues.create(ns, dagQueue('serial').maxConcurrency(1).build());
    await givenDag(ns, 'left', 'queue: serial\nmaxActiveRuns: 5\nsteps: ["sleep 0.2"]');
    await givenDag(ns, 'right', 'queue: serial\nmaxActiveRuns: 5\nsteps: ["sleep 0.2"]');
    const names = Array.from({ length: 6 }, (_, i) => `${i % 2 === 0 ? 'left' : 'right'}-q${String(i)}`);
    await Promise.all(names.map((name) => enqueue(name, name.split('-')[0] ?? '')));
    const done = await allFinished(names);
    expect(done.map((r) => r.status?.statusLabel)).toEqual(names.map(() => 'succeeded'));
    expect(peakConcurrency(ns, (pod) => pod.startsWith('left-q') || pod.startsWith('right-q'))).toBe(1);
  });

  it('starts sub runs at once, past their DAG queue and maxActiveRuns', async () => {
    // The worker DAG alone would run one at a time (its own maxActiveRuns and the serial queue).
    const yaml = [
      'steps:',
      '  - call: worker',
      '    parallel: [a, b, c]',
      '    params: "WHO=${ITEM}"',
      '---',
      'name: worker',
      'queue: serial',
      'maxActiveRuns: 1',
      'params: WHO=none',
      'steps: ["sleep 1.5"]',
    ].join('\n');
    await givenDag(ns, 'fanout', yaml);
    await enqueue('fanout-1', 'fanout');
    expect((await finishedRun(ns, 'fanout-1', 60_000)).status?.statusLabel).toBe('succeeded');
    // Child runs are named after the parent's step (fanout-1-...), their step Pods after them.
    expect(peakConcurrency(ns, (pod) => pod.startsWith('fanout-1-') && pod.includes('cmd-1'))).toBe(3);
  });

  it('starts a run that a leader let out and died before starting, however long ago', async () => {
    await operator.stop();
    // What a dead leader leaves behind: a complete run (as the API server creates it) let out
    // of its queue a minute ago and never started.
    const spec = dagManifest('orphan', loadDag('steps: [echo adopted]', { fileName: 'orphan' }).documents, ns).spec;
    await givenDag(ns, 'orphan', 'steps: [echo adopted]');
    await kube.runs.create(ns, dagRun('orphan-1').of('orphan', 'o1').spec({ snapshot: spec, enqueue: true }).build());
    const minuteAgo = new Date(Date.now() - 60_000).toISOString();
    await kube.runs.mergePatchStatus(ns, 'orphan-1', { status: { queuedAt: minuteAgo, handedOffAt: minuteAgo } });
    operator = await startOperator(ns);
    // Its 10 s to start count from the new leader's start, not from the dead leader's hand-off.
    expect((await finishedRun(ns, 'orphan-1')).status?.statusLabel).toBe('succeeded');
  });
});
