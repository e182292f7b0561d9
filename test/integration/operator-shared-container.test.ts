/**
 * The DAG-level `container` (issue 13) end to end on the local control plane: the operator
 * creates the run's one container Pod, each step execs into it from a step Pod of the runner
 * (as the run's exec ServiceAccount, bound to the chart's step exec ClusterRole),
 * and the Pod goes when the run ends unless the DAG keeps it.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sharedContainerPodName } from '../../core/resources/names.ts';
import { clients, waitFor } from './support.ts';
import {
  finishedRun,
  givenDag,
  runningStep,
  stepLog,
  stepStates,
  stopRun,
  whenRun,
  withOperatorNamespace,
  type RunningOperator,
} from './operator-support.ts';

const { core } = clients();
const unique = randomBytes(4).toString('hex');

let ns = '';
let operator: RunningOperator;

const containerPod = async (run: string): Promise<{ phase?: string; deleting: boolean } | undefined> => {
  const pods = await core.listNamespacedPod({
    namespace: ns,
    fieldSelector: `metadata.name=${sharedContainerPodName(run)}`,
  });
  const found = pods.items[0];
  return found === undefined
    ? undefined
    : {
        ...(found.status?.phase === undefined ? {} : { phase: found.status.phase }),
        deleting: found.metadata?.deletionTimestamp !== undefined,
      };
};

/** The run's container Pod is gone, or going. */
const containerGone = async (run: string): Promise<boolean> => {
  const found = await containerPod(run);
  return found === undefined || found.deleting;
};

withOperatorNamespace('shared', (made) => {
  ({ ns, operator } = made);
});

describe('a DAG with a container block', () => {
  it('runs its steps in one container, where what a step leaves is there for the next, and removes it at the end', async () => {
    await givenDag(
      ns,
      'state',
      `
env: [GREETING=hello-${unique}]
container:
  image: busybox
  env: [FROM_CONTAINER=ctr]
steps:
  - name: write
    command: sh -c 'echo "$GREETING $FROM_CONTAINER" > /var/tmp/state-${unique}'
  - name: read
    script: |
      cat /var/tmp/state-${unique}
      echo "script sees $GREETING"
  - name: outside
    executor: shell
    command: sh -c 'cat /var/tmp/state-${unique} 2>/dev/null || echo absent'
`,
    );
    await whenRun(ns, 'state-1', 'state');
    const done = await finishedRun(ns, 'state-1');
    expect([done.status?.statusLabel, done.status?.error, stepStates(done)]).toEqual([
      'succeeded',
      undefined,
      { write: 'succeeded', read: 'succeeded', outside: 'succeeded' },
    ]);
    expect(await stepLog(operator, done, 'read')).toBe(`hello-${unique} ctr\nscript sees hello-${unique}\n`);
    // A step that names the shell executor runs in a Pod of its own, as Dagu runs it on its host.
    expect(await stepLog(operator, done, 'outside')).toBe('absent\n');
    await waitFor("the run's container Pod to go", () => containerGone('state-1'), 30_000);
  });

  it("runs a Dagu 2.x step with a container of its own in its own Pod, not in the DAG's container", async () => {
    await givenDag(
      ns,
      'own',
      `
container:
  image: busybox
steps:
  - id: write
    run: sh -c 'echo shared > /var/tmp/own-${unique}'
  - id: apart
    depends: [write]
    container: {image: busybox, env: [WHERE=own]}
    run: sh -c 'cat /var/tmp/own-${unique} 2>/dev/null || echo "absent in $WHERE"'
`,
    );
    await whenRun(ns, 'own-1', 'own');
    const done = await finishedRun(ns, 'own-1');
    expect([done.status?.statusLabel, stepStates(done)]).toEqual([
      'succeeded',
      { write: 'succeeded', apart: 'succeeded' },
    ]);
    expect(await stepLog(operator, done, 'apart')).toBe('absent in own\n');
  });

  it("waits for the startup command's log pattern before the first step, and keeps the container when asked", async () => {
    await givenDag(
      ns,
      'service',
      `
container:
  image: busybox
  startup: command
  command: [sh, -c, "echo booting; sleep 4; echo up > /var/tmp/up-${unique}; echo service ready; exec sleep 600"]
  logPattern: "^service ready$"
  keepContainer: true
steps:
  - cat /var/tmp/up-${unique}
`,
    );
    await whenRun(ns, 'service-1', 'service');
    const done = await finishedRun(ns, 'service-1');
    expect([done.status?.statusLabel, await stepLog(operator, done, 'container_1')]).toEqual(['succeeded', 'up\n']);
    expect(await containerPod('service-1')).toEqual({ phase: 'Running', deleting: false });
  });

  it('fails the step with the reason when the container ends before it could run', async () => {
    await givenDag(
      ns,
      'broken',
      `
container:
  image: busybox
  startup: command
  command: [sh, -c, "exit 4"]
steps:
  - name: never
    command: "true"
`,
    );
    await whenRun(ns, 'broken-1', 'broken');
    const done = await finishedRun(ns, 'broken-1');
    expect([done.status?.statusLabel, await stepLog(operator, done, 'never', 'stderr')]).toEqual([
      'failed',
      `kubedag-step: the run's container ${sharedContainerPodName('broken-1')}/main has ended (exit code 4, Error)\n`,
    ]);
  });

  it('stops the step running in the container when the run is stopped, then removes the container', async () => {
    await givenDag(
      ns,
      'stopped',
      `
maxCleanUpTimeSec: 3
container: {image: busybox}
steps:
  - name: long
    command: sleep 60
`,
    );
    await whenRun(ns, 'stopped-1', 'stopped');
    await runningStep(ns, 'stopped-1', 'long');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await stopRun(ns, 'stopped-1');
    const done = await finishedRun(ns, 'stopped-1');
    expect([done.status?.statusLabel, stepStates(done)]).toEqual(['canceled', { long: 'canceled' }]);
    await waitFor("the run's container Pod to go", () => containerGone('stopped-1'), 30_000);
  });
});
