/**
 * Docker steps with `containerName` (issue 13) end to end on the local control plane: the
 * operator runs `kubedag-step` in a step Pod as the run's exec ServiceAccount, bound to the
 * step exec ClusterRole (the local cluster has it as the chart makes it), and the runner execs into a Pod of
 * the namespace through kube-apiserver and the node agent.
 */
import { randomBytes } from 'node:crypto';
import { RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execServiceAccountName } from '../../core/resources/names.ts';
import { pod } from '../builders/pod.ts';
import { clients, createNamespace, deleteNamespace, kubectl, running, waitFor, waitForPod } from './support.ts';
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
} from './operator-support.ts';

const { kc, core } = clients();
const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
const unique = randomBytes(4).toString('hex');

let ns = '';
let operator: RunningOperator;

/** What is in the target container at `path`, read with kubectl exec (not through Kubedag). */
const inTarget = (path: string): Promise<string> =>
  kubectl('exec', '-n', ns, 'target', '-c', 'app', '--', 'sh', '-c', `cat ${path} 2>/dev/null || echo absent`);

beforeAll(async () => {
  ns = await createNamespace(core, 'cexec');
  const target = pod('target').shell('exec sleep 600').build();
  if (target.spec?.containers[0] !== undefined) target.spec.containers[0].name = 'app';
  if (target.spec !== undefined) target.spec.terminationGracePeriodSeconds = 1;
  await core.createNamespacedPod({ namespace: ns, body: target });
  await waitForPod(core, { namespace: ns, name: 'target' }, 'to run', running);
  operator = await startOperator(ns);
});

afterAll(async () => {
  await operator.stop();
  await deleteNamespace(core, ns);
});

describe('a docker step with containerName', () => {
  it("writes a file in the running container that a later step reads back, with exec workingDir and env, as the run's exec ServiceAccount", async () => {
    await givenDag(
      ns,
      'inside',
      `
steps:
  - name: write
    executor: {type: docker, config: {containerName: target, exec: {workingDir: /tmp, env: ["WORD=kept-${unique}"]}}}
    command: sh -c 'echo "$WORD" > ./inside-${unique}'
  - name: read
    depends: write
    executor: {type: docker, config: {containerName: target/app}}
    command: cat /tmp/inside-${unique}
    output: READ
`,
    );
    await whenRun(ns, 'inside-1', 'inside');
    const done = await finishedRun(ns, 'inside-1');
    expect([done.status?.statusLabel, done.status?.error, stepStates(done)]).toEqual([
      'succeeded',
      undefined,
      { write: 'succeeded', read: 'succeeded' },
    ]);
    expect(done.status?.nodes?.[1]?.outputs).toEqual({ READ: `kept-${unique}` });
    expect(await inTarget(`/tmp/inside-${unique}`)).toBe(`kept-${unique}\n`);
    // The steps ran with the token of the run's own ServiceAccount, bound to the exec role.
    const binding = await rbac.readNamespacedRoleBinding({ namespace: ns, name: execServiceAccountName('inside-1') });
    expect([binding.roleRef.name, binding.subjects, binding.metadata?.ownerReferences?.[0]?.name]).toEqual([
      'kubedag-step-exec',
      [{ kind: 'ServiceAccount', name: execServiceAccountName('inside-1'), namespace: ns }],
      'inside-1',
    ]);
  });

  it('with an image too, execs into the container when it runs and otherwise runs from the image, as Dagu does', async () => {
    await kubectl('exec', '-n', ns, 'target', '-c', 'app', '--', 'sh', '-c', `echo in-target > /tmp/where-${unique}`);
    await givenDag(
      ns,
      'either',
      `
steps:
  - name: running
    executor: {type: docker, config: {image: busybox, containerName: target}}
    script: |
      cat /tmp/where-${unique}
  - name: absent
    executor: {type: docker, config: {image: busybox, containerName: nowhere-${unique}}}
    command: sh -c 'cat /tmp/where-${unique} 2>/dev/null || echo own-pod'
`,
    );
    await whenRun(ns, 'either-1', 'either');
    const done = await finishedRun(ns, 'either-1');
    expect([done.status?.statusLabel, stepStates(done)]).toEqual([
      'succeeded',
      { running: 'succeeded', absent: 'succeeded' },
    ]);
    expect([await stepLog(operator, done, 'running'), await stepLog(operator, done, 'absent')]).toEqual([
      'in-target\n',
      'own-pod\n',
    ]);
  });

  it("keeps the command's stdout and stderr apart and fails the step with its exit code", async () => {
    await givenDag(
      ns,
      'failing',
      `
steps:
  - name: fail
    executor: {type: docker, config: {containerName: target}}
    command: sh -c 'echo to-out; echo to-err >&2; exit 3'
`,
    );
    await whenRun(ns, 'failing-1', 'failing');
    const done = await finishedRun(ns, 'failing-1');
    expect([done.status?.statusLabel, stepStates(done), done.status?.nodes?.[0]?.exitCode]).toEqual([
      'failed',
      { fail: 'failed' },
      3,
    ]);
    expect([await stepLog(operator, done, 'fail'), await stepLog(operator, done, 'fail', 'stderr')]).toEqual([
      'to-out\n',
      'to-err\n',
    ]);
  });

  it('fails with a clear error when the named Pod does not exist', async () => {
    await givenDag(
      ns,
      'missing',
      `
steps:
  - name: nowhere
    executor: {type: docker, config: {containerName: absent}}
    command: "true"
`,
    );
    await whenRun(ns, 'missing-1', 'missing');
    const done = await finishedRun(ns, 'missing-1');
    expect([done.status?.statusLabel, await stepLog(operator, done, 'nowhere', 'stderr')]).toEqual([
      'failed',
      `kubedag-step: Pod absent not found in namespace ${ns} (containerName names a running Pod of the run's namespace)\n`,
    ]);
  });

  it('ends the remote command when the run is stopped: it never finishes its work', async () => {
    const marker = `/tmp/stopped-${unique}`;
    await givenDag(
      ns,
      'long',
      `
maxCleanUpTimeSec: 3
steps:
  - name: wait
    executor: {type: docker, config: {containerName: target}}
    command: sh -c 'sleep 8; echo finished > ${marker}'
`,
    );
    await whenRun(ns, 'long-1', 'long');
    await runningStep(ns, 'long-1', 'wait');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await stopRun(ns, 'long-1');
    const done = await finishedRun(ns, 'long-1');
    expect([done.status?.statusLabel, stepStates(done)]).toEqual(['canceled', { wait: 'canceled' }]);
    await new Promise((resolve) => setTimeout(resolve, 9000));
    expect(await inTarget(marker)).toBe('absent\n');
  });

  it.each(['SIGINT', 'SIGUSR1'])(
    "delivers the step's signalOnStop %s to the command through the node agent, the runner and the exec",
    async (signal) => {
      // The whole path: the node agent's SIGTERM to the step Pod, its shell runner's SIGTERM to
      // kubedag-step, the exec wrapper's signal to the command in the target container.
      const name = signal.replace(/^SIG/, '');
      const marker = `/tmp/signal-${name}-${unique}`;
      const dag = `sig-${name.toLowerCase()}`;
      await givenDag(
        ns,
        dag,
        `
maxCleanUpTimeSec: 5
steps:
  - name: wait
    signalOnStop: ${signal}
    executor: {type: docker, config: {containerName: target}}
    command: sh -c '${['INT', 'USR1', 'TERM'].map((s) => `trap "echo ${s} > ${marker}; exit 0" ${s}`).join('; ')}; echo ready > ${marker}.ready; while :; do sleep 0.1; done'
`,
      );
      await whenRun(ns, `${dag}-1`, dag);
      await runningStep(ns, `${dag}-1`, 'wait');
      // Stopped only once the command in the target has its traps: a running step Pod says only
      // that the exec began (on a loaded machine the shell came up after a fixed wait, untrapped).
      await waitFor(
        'the traps in the target',
        async () => (await inTarget(`${marker}.ready`)) === 'ready\n',
        30_000,
        250,
      );
      await stopRun(ns, `${dag}-1`);
      const done = await finishedRun(ns, `${dag}-1`);
      expect([done.status?.statusLabel, await inTarget(marker)]).toEqual(['canceled', `${name}\n`]);
      expect(await stepLog(operator, done, 'wait', 'stderr')).not.toMatch(/Debugger/);
    },
  );
});
