import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { kubedagClients } from '../../core/kube/client.ts';
import { ignoreNotFound } from '../../core/kube/errors.ts';
import { stepPodName } from '../../core/resources/names.ts';
import { clients, kubectl, running, waitFor, waitForPod } from './support.ts';
import { scenarios } from './operator-scenarios.ts';
import {
  askRetry,
  finishedRun,
  ledgerOf,
  getRun,
  givenDag,
  runningStep,
  stepLog,
  stepStates,
  stopRun,
  whenRun,
  type RunningOperator,
  withOperatorNamespace,
} from './operator-support.ts';

const { core, custom } = clients();
const kube = kubedagClients(custom);

let ns = '';
let operator: RunningOperator;
withOperatorNamespace('op', (made) => ({ ns, operator } = made));

/**
 * Files a step finds in its image: here the host is the image, so a directory the test writes,
 * readable by the step's uid. Not under /tmp, which each container has for itself; such DAGs
 * turn the workspace off, which would otherwise be mounted over their working directory.
 */
function imageDir(prefix: string): string {
  const dir = mkdtempSync(join('/var/tmp', prefix));
  chmodSync(dir, 0o755);
  return dir;
}

describe('runs on the local control plane', () => {
  it.each(scenarios.map((s, i) => ({ ...s, index: i })))('$name', async ({ dag, params, run, steps, index }) => {
    const name = `scenario-${String(index)}`;
    await givenDag(ns, name, dag);
    await whenRun(ns, `${name}-run`, name, params === undefined ? {} : { params });
    const done = await finishedRun(ns, `${name}-run`);
    expect(done.status?.statusLabel).toBe(run);
    expect(stepStates(done)).toEqual(steps);
  });

  it('sets conditions that kubectl wait understands, with the generation they describe', async () => {
    await givenDag(ns, 'waitable', 'steps: ["sleep 1"]');
    await whenRun(ns, 'waitable-run', 'waitable');
    await kubectl('wait', '-n', ns, '--for=condition=Running', 'dagrun/waitable-run', '--timeout=30s');
    await kubectl('wait', '-n', ns, '--for=condition=Succeeded', 'dagrun/waitable-run', '--timeout=30s');
    const done = await getRun(ns, 'waitable-run');
    expect(done.status?.conditions?.map((c) => [c.type, c.status, c.observedGeneration])).toEqual([
      ['Running', 'False', done.metadata?.generation],
      ['Succeeded', 'True', done.metadata?.generation],
    ]);
    expect(done.status?.observedGeneration).toBe(done.metadata?.generation);
  });

  it('passes a captured output to the next step and keeps stdout and stderr apart', async () => {
    await givenDag(
      ns,
      'outputs',
      [
        'steps:',
        '  - name: produce',
        '    command: "echo \'{\\"region\\": \\"eu\\", \\"n\\": 3}\'; echo noise >&2"',
        '    output: DATA',
        '  - name: consume',
        '    command: echo "region=${DATA.region} n=${DATA.n}"',
      ].join('\n'),
    );
    await whenRun(ns, 'outputs-run', 'outputs');
    const done = await finishedRun(ns, 'outputs-run');
    expect(stepStates(done)).toEqual({ produce: 'succeeded', consume: 'succeeded' });
    expect(done.status?.nodes?.[0]?.outputs).toEqual({ DATA: '{"region": "eu", "n": 3}' });
    expect(await stepLog(operator, done, 'consume')).toBe('region=eu n=3\n');
    expect(await stepLog(operator, done, 'produce', 'stderr')).toBe('noise\n');
  });

  it('runs the handlers with DAG_RUN_STATUS after the steps', async () => {
    await givenDag(
      ns,
      'handlers',
      'steps: ["exit 1"]\nhandlerOn:\n  failure: {command: echo "failure saw $DAG_RUN_STATUS"}\n  exit: {command: echo "exit saw $DAG_RUN_STATUS"}',
    );
    await whenRun(ns, 'handlers-run', 'handlers');
    const done = await finishedRun(ns, 'handlers-run');
    expect([done.status?.statusLabel, done.status?.onFailure?.statusLabel, done.status?.onExit?.statusLabel]).toEqual([
      'failed',
      'succeeded',
      'succeeded',
    ]);
    expect(await stepLog(operator, done, 'onFailure')).toBe('failure saw failed\n');
    expect(await stepLog(operator, done, 'onExit')).toBe('exit saw failed\n');
  });

  it('routes steps to nodes by workerSelector through the real scheduler', async () => {
    // Steps on different nodes share a workspace only through a ReadWriteMany volume.
    await givenDag(
      ns,
      'routing',
      'type: graph\nkubernetes: {workspace: {accessMode: ReadWriteMany}}\nsteps:\n  - {name: gpu, command: echo $HOSTNAME, workerSelector: {gpu: "true"}}\n  - {name: plain, command: echo, workerSelector: {kubernetes.io/hostname: kubedag-node-1}}',
    );
    await whenRun(ns, 'routing-run', 'routing');
    const done = await finishedRun(ns, 'routing-run');
    expect(done.status?.statusLabel).toBe('succeeded');
    const nodeOf = (step: string): string[] => [
      ...new Set(ledgerOf(ns, stepPodName('routing-run', step, 0)).map((e) => e.node)),
    ];
    expect({ gpu: nodeOf('gpu'), plain: nodeOf('plain') }).toEqual({
      gpu: ['kubedag-node-2'],
      plain: ['kubedag-node-1'],
    });
  });

  it('stops a running run: the step is signalled, the cancel handler runs, the run ends canceled', async () => {
    await givenDag(
      ns,
      'stoppable',
      'maxCleanUpTimeSec: 5\nsteps:\n  - "trap \'echo got-term; exit 0\' TERM; while :; do sleep 0.1; done"\n  - echo never\nhandlerOn: {cancel: {command: echo canceled}}',
    );
    await whenRun(ns, 'stoppable-run', 'stoppable');
    await runningStep(ns, 'stoppable-run', 'cmd_1');
    // A step is running once its Pod exists; a Pod still waiting for its workspace volume is
    // deleted on stop, not signalled. This test is about the signal: wait for the process.
    await waitForPod(
      core,
      { namespace: ns, name: stepPodName('stoppable-run', 'cmd_1', 0) },
      'the step process',
      running,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    await stopRun(ns, 'stoppable-run');
    const done = await finishedRun(ns, 'stoppable-run');
    expect([done.status?.statusLabel, done.status?.onCancel?.statusLabel]).toEqual(['canceled', 'succeeded']);
    expect(stepStates(done)).toEqual({ cmd_1: 'canceled' });
    expect(await stepLog(operator, done, 'cmd_1')).toBe('got-term\n');
  });

  it('stops a plain command at once: the signal reaches every process of the step, not only its shell', async () => {
    await givenDag(ns, 'sleepy', 'maxCleanUpTimeSec: 60\nsteps:\n  - "echo started; sleep 120"');
    await whenRun(ns, 'sleepy-run', 'sleepy');
    await runningStep(ns, 'sleepy-run', 'cmd_1');
    await waitForPod(core, { namespace: ns, name: stepPodName('sleepy-run', 'cmd_1', 0) }, 'the step process', running);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const stopped = Date.now();
    await stopRun(ns, 'sleepy-run');
    const done = await finishedRun(ns, 'sleepy-run');
    // Well inside maxCleanUpTimeSec: no SIGKILL was needed.
    expect(Date.now() - stopped).toBeLessThan(20_000);
    expect([done.status?.statusLabel, stepStates(done)]).toEqual(['canceled', { cmd_1: 'canceled' }]);
    expect(await stepLog(operator, done, 'cmd_1')).toBe('started\n');
  });

  it('freezes the definition: editing the DAG during a run changes nothing for it', async () => {
    await givenDag(ns, 'frozen', 'steps: ["sleep 1", echo first-version]');
    await whenRun(ns, 'frozen-run', 'frozen');
    await waitFor(
      'the run to start',
      async () => (await getRun(ns, 'frozen-run')).spec.frozenDefinition !== undefined,
      30_000,
    );
    await kube.dags.jsonPatch(ns, 'frozen', [{ op: 'replace', path: '/spec/steps', value: ['exit 9'] }]);
    const done = await finishedRun(ns, 'frozen-run');
    expect(done.status?.statusLabel).toBe('succeeded');
    expect(await stepLog(operator, done, 'cmd_2')).toBe('first-version\n');
  });

  it('serves archived step logs as contract log chunks, and metrics', async () => {
    await givenDag(ns, 'chunks', 'steps: ["for i in 1 2 3 4 5; do echo line-$i; done; echo err >&2"]');
    await whenRun(ns, 'chunks-run', 'chunks');
    const done = await finishedRun(ns, 'chunks-run');
    const base = `${operator.url}/logs/${ns}/chunks/${done.spec.dagRunId ?? ''}/cmd_1/0`;
    expect(await (await fetch(`${base}?tail=2`)).json()).toEqual({
      content: 'line-4\nline-5',
      lineCount: 2,
      totalLines: 5,
      hasMore: true,
      isEstimate: false,
    });
    expect(await (await fetch(`${base}?stream=stderr`)).json()).toMatchObject({ content: 'err', lineCount: 1 });
    expect((await fetch(`${operator.url}/logs/${ns}/chunks/nope/cmd_1/0`)).status).toBe(404);
    const metrics = await (await fetch(`${operator.url}/metrics`)).text();
    expect(metrics).toMatch(/kubedag_runs_finished_total\{status="succeeded"\} \d+/);
    expect(metrics).toMatch(/kubedag_api_writes_total\{verb="create"\} \d+/);
    expect(metrics).toContain('kubedag_step_gap_seconds_bucket');
  });

  it('serves the log of a running step live from its Pod, with secrets masked', async () => {
    const dir = imageDir('kd-live-');
    writeFileSync(join(dir, 'pw'), 'live-s3cret\n');
    await givenDag(
      ns,
      'live',
      `kubernetes: {workspace: false}\nworkingDir: ${dir}\nsecrets: [{name: PW, provider: file, key: pw}]\nsteps:\n  - "echo started $PW; echo warn >&2; sleep 30"`,
    );
    await whenRun(ns, 'live-run', 'live');
    const run = await runningStep(ns, 'live-run', 'cmd_1');
    const base = `${operator.url}/logs/${ns}/live/${run.spec.dagRunId ?? ''}/cmd_1/0`;
    // A Pod that has just started may not have written its first line yet: wait for it.
    await waitFor(
      'the live log',
      async () => ((await (await fetch(base)).json()) as { content?: string }).content !== '',
      15_000,
      100,
    );
    expect(await (await fetch(base)).json()).toMatchObject({ content: 'started *******', lineCount: 1 });
    await waitFor(
      'the live stderr',
      async () => ((await (await fetch(`${base}?stream=stderr`)).json()) as { content?: string }).content !== '',
      15_000,
      100,
    );
    expect(await (await fetch(`${base}?stream=stderr`)).json()).toMatchObject({ content: 'warn' });
    await stopRun(ns, 'live-run');
    await finishedRun(ns, 'live-run');
  });

  it('retries a failed run in place: failed and downstream steps run again, succeeded ones do not', async () => {
    await givenDag(
      ns,
      'retryable',
      'steps:\n  - {name: first, command: echo once}\n  - {name: flaky, command: "test -f .marker || { touch .marker; exit 1; }"}\n  - {name: last, command: echo done}',
    );
    await whenRun(ns, 'retryable-run', 'retryable');
    const failed = await finishedRun(ns, 'retryable-run');
    expect(stepStates(failed)).toEqual({ first: 'succeeded', flaky: 'failed', last: 'canceled' });
    await askRetry(ns, 'retryable-run', 'r1');
    await waitFor(
      'the retry to start',
      async () => (await getRun(ns, 'retryable-run')).status?.retryToken === 'r1',
      30_000,
    );
    const retried = await finishedRun(ns, 'retryable-run');
    expect([retried.status?.statusLabel, retried.spec.dagRunId]).toEqual(['succeeded', failed.spec.dagRunId]);
    expect(stepStates(retried)).toEqual({ first: 'succeeded', flaky: 'succeeded', last: 'succeeded' });
    expect(retried.status?.nodes?.map((n) => n.attempt)).toEqual([0, 1, 1]);
  });

  it('respects step status edits written into a finished run when it is retried', async () => {
    await givenDag(
      ns,
      'edited',
      'steps:\n  - {name: first, command: echo once}\n  - {name: broken, command: exit 1}\n  - {name: last, command: echo done}',
    );
    await whenRun(ns, 'edited-run', 'edited');
    const failed = await finishedRun(ns, 'edited-run');
    expect(stepStates(failed)).toEqual({ first: 'succeeded', broken: 'failed', last: 'canceled' });
    // What the API's step status PATCH does: mark the broken step succeeded by hand.
    const nodes = (failed.status?.nodes ?? []).map((n) =>
      n.name === 'broken' ? { ...n, status: 4, statusLabel: 'succeeded' } : n,
    );
    await kube.runs.replaceStatus({ ...failed, status: { ...failed.status, nodes } });
    await askRetry(ns, 'edited-run', 'r1');
    await waitFor(
      'the retry to start',
      async () => (await getRun(ns, 'edited-run')).status?.retryToken === 'r1',
      30_000,
    );
    const retried = await finishedRun(ns, 'edited-run');
    expect([retried.status?.statusLabel, stepStates(retried)]).toEqual([
      'succeeded',
      { first: 'succeeded', broken: 'succeeded', last: 'succeeded' },
    ]);
    expect(retried.status?.nodes?.map((n) => n.attempt)).toEqual([0, 0, 1]);
  });

  it('keeps a 1 MiB output out of the run status; steps that use it fail clearly, others run', async () => {
    const dag = [
      'type: graph',
      'steps:',
      '  - {name: big, command: "head -c 1048000 /dev/zero | tr \'\\\\000\' x", output: BIG}',
      '  - {name: ignores, command: echo fine, depends: big}',
      '  - {name: uses, command: "echo ${BIG}", depends: big}',
    ].join('\n');
    await givenDag(ns, 'big-output', dag);
    await whenRun(ns, 'big-output-run', 'big-output');
    const done = await finishedRun(ns, 'big-output-run', 90_000);
    expect(stepStates(done)).toEqual({ big: 'succeeded', ignores: 'succeeded', uses: 'failed' });
    expect(done.status?.nodes?.[0]?.outputRefs).toEqual({ BIG: { attempt: 0, bytes: 1_048_000 } });
    expect(JSON.stringify(done).length).toBeLessThan(20_000);
    expect((await stepLog(operator, done, 'big'))?.trim().length).toBe(1_048_000);
    expect(await stepLog(operator, done, 'uses', 'stderr')).toContain(
      'kubedag: the step uses BIG (1048000 bytes), too large for an environment variable',
    );
    expect(await stepLog(operator, done, 'ignores', 'stderr')).toContain(
      'not set, too large for an environment variable: BIG',
    );
  });

  it('keeps DAG status: validity, schedule and the latest run, for kubectl get dags', async () => {
    await givenDag(ns, 'scheduled', 'schedule: "0 3 * * *"\nsteps: [echo]');
    await whenRun(ns, 'scheduled-run', 'scheduled');
    await finishedRun(ns, 'scheduled-run');
    await waitFor(
      'the DAG status',
      async () => {
        const dag = await kube.dags.get(ns, 'scheduled');
        return dag.status?.valid === true && dag.status.latestRun?.statusLabel === 'succeeded';
      },
      30_000,
    );
    const { kubectl } = await import('./support.ts');
    expect(await kubectl('get', 'dag', 'scheduled', '-n', ns)).toMatch(/scheduled\s+0 3 \* \* \*\s+false\s+succeeded/);
  });

  it('logs JSON lines that name the operator and the run that finished', async () => {
    await givenDag(ns, 'logged', 'steps: [echo]');
    await whenRun(ns, 'logged-run', 'logged');
    await finishedRun(ns, 'logged-run');
    const lines = (): Record<string, unknown>[] =>
      operator
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    const finished = (): Record<string, unknown> | undefined =>
      lines().find((line) => line.msg === 'run finished' && line.run === `${ns}/logged-run`);
    await waitFor('the run finished line', () => Promise.resolve(finished() !== undefined), 10_000, 50);
    expect(finished()).toMatchObject({ component: 'operator', level: 30, status: 'succeeded' });
  });

  it('deletes finished step Pods once their logs are archived', async () => {
    await givenDag(ns, 'cleanup', 'steps: ["sleep 1; echo kept"]');
    await whenRun(ns, 'cleanup-run', 'cleanup');
    const name = stepPodName('cleanup-run', 'cmd_1', 0);
    const readPod = (): Promise<V1Pod | undefined> => ignoreNotFound(core.readNamespacedPod({ name, namespace: ns }));
    await waitFor('the step Pod', async () => (await readPod()) !== undefined, 30_000, 50);
    const done = await finishedRun(ns, 'cleanup-run');
    const gone = (pod: V1Pod | undefined): boolean =>
      pod === undefined || pod.metadata?.deletionTimestamp !== undefined;
    await waitFor('the step Pod to be deleted', async () => gone(await readPod()), 30_000);
    expect(await stepLog(operator, done, 'cmd_1')).toBe('kept\n');
  });
});
