/**
 * Runs that start other runs, on the local control plane: a local sub-DAG called as a child
 * run (its outputs passed back, its failure the calling step's), and a parallel step as one
 * child run per item under maxConcurrent, measured on the node's ledger.
 */
import { describe, expect, it } from 'vitest';
import { kubedagClients } from '../../core/kube/client.ts';
import { stepPodName } from '../../core/resources/names.ts';
import { clients } from './support.ts';
import {
  finishedRun,
  givenDag,
  ledgerOf,
  peakConcurrency,
  stepLog,
  stepStates,
  whenRun,
  type RunningOperator,
  withOperatorNamespace,
} from './operator-support.ts';

const { custom } = clients();
const kube = kubedagClients(custom);

let ns = '';
let operator: RunningOperator;
withOperatorNamespace('op-children', (made) => ({ ns, operator } = made));

describe('child runs on the local control plane', () => {
  it('runs a local sub-DAG as a child run and passes its outputs back', async () => {
    const yaml = [
      'steps:',
      '  - name: call-child',
      '    call: child',
      '    params: "WHO=parent"',
      '    output: R',
      '  - name: after',
      '    command: echo "child said ${R.outputs.GREETING} (${R.status})"',
      '---',
      'name: child',
      'params: "WHO=nobody"',
      'steps:',
      '  - name: greet',
      '    command: echo "hello $WHO"',
      '    output: GREETING',
    ].join('\n');
    await givenDag(ns, 'parent', yaml);
    await whenRun(ns, 'parent-run', 'parent');
    const done = await finishedRun(ns, 'parent-run');
    expect(stepStates(done)).toEqual({ 'call-child': 'succeeded', after: 'succeeded' });
    expect(await stepLog(operator, done, 'after')).toBe('child said hello parent (succeeded)\n');
    const subRun = done.status?.nodes?.[0]?.subRuns?.[0]?.dagRunId ?? '';
    const children = await kube.runs.list(ns);
    const child = children.items.find((r) => r.spec.dagRunId === subRun);
    expect(child?.spec.parent?.dagRunId).toBe(done.spec.dagRunId);
    expect(child?.spec.root?.dagRunId).toBe(done.spec.dagRunId);
  });

  it('fails the calling step when the child run fails', async () => {
    await givenDag(ns, 'failing-child', 'steps:\n  - {name: go, call: broken}\n---\nname: broken\nsteps: ["exit 5"]');
    await whenRun(ns, 'failing-child-run', 'failing-child');
    const done = await finishedRun(ns, 'failing-child-run');
    expect([done.status?.statusLabel, done.status?.nodes?.[0]?.error]).toEqual(['failed', 'sub-DAG run failed']);
  });

  it('runs a parallel step as one child run per item, equal params once, at most maxConcurrent at once', async () => {
    const yaml = [
      'steps:',
      '  - name: list',
      '    command: echo \'["eu", "us", "eu", "ap"]\'',
      '    output: REGIONS',
      '  - name: fan',
      '    call: sync-region',
      '    parallel: {items: "${REGIONS}", maxConcurrent: 2}',
      '    params: "REGION=${ITEM}"',
      '    output: RESULTS',
      '  - name: report',
      '    command: echo "${RESULTS.summary.succeeded} of ${RESULTS.summary.total}"',
      '---',
      'name: sync-region',
      'params: "REGION=none"',
      'steps:',
      '  - {name: sync, command: sleep 1; echo "synced $REGION", output: DONE}',
    ].join('\n');
    await givenDag(ns, 'fan', yaml);
    await whenRun(ns, 'fan-run', 'fan');
    const done = await finishedRun(ns, 'fan-run', 90_000);
    // Concurrency measured from when each child's step process started and exited on its node.
    const children = await kube.runs.list(ns);
    const childPods = new Set(
      children.items
        .filter((r) => r.metadata?.ownerReferences?.some((o) => o.uid === done.metadata?.uid) === true)
        .map((child) => stepPodName(child.metadata?.name ?? '', 'sync', 0)),
    );
    expect([...childPods].filter((pod) => ledgerOf(ns, pod).some((e) => e.event === 'start'))).toHaveLength(3);
    expect(peakConcurrency(ns, (pod) => childPods.has(pod))).toBe(2);
    expect(stepStates(done)).toEqual({ list: 'succeeded', fan: 'succeeded', report: 'succeeded' });
    expect(await stepLog(operator, done, 'report')).toBe('3 of 3\n');
    expect(done.status?.nodes?.[1]?.subRuns).toHaveLength(3);
    const outputs = (
      JSON.parse(done.status?.nodes?.[1]?.outputs?.RESULTS ?? '{}') as { outputs: { DONE: string }[] }
    ).outputs
      .map((o) => o.DONE)
      .sort();
    expect(outputs).toEqual(['synced ap', 'synced eu', 'synced us']);
  });
});
