import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDag, type Step } from '../../../core/dag/index.ts';
import { executorEnv, executorSpec } from './executor-spec.ts';
import { demux, runnerScript, stepPod, type PodRequest } from './step-pod.ts';

function firstStep(yaml: string): { dag: ReturnType<typeof loadDag>['dag']; step: Step } {
  const load = loadDag(yaml, { fileName: 'executors' });
  expect(load.errors).toEqual([]);
  return { dag: load.dag, step: load.dag.steps[0] as Step };
}

describe('the executor spec of a step', () => {
  it.each([
    { name: 'a shell step has none', yaml: 'steps: [echo hi]', command: 'echo hi', want: undefined },
    {
      name: 'an http step carries the expanded command and its settings as written',
      yaml: 'steps:\n  - {executor: {type: http, config: {headers: {A: "${X}"}, silent: true}}, command: "GET http://h/${P}"}',
      command: 'GET http://h/path',
      want: {
        type: 'http',
        command: 'GET http://h/path',
        config: { headers: { A: '${X}' }, silent: true },
        stop: { signal: 'SIGTERM', graceMs: 4000 },
      },
    },
    {
      name: 'a 2.x wait action carries its operation as the command and its settings unexpanded',
      yaml: 'steps:\n  - {name: s, action: wait.http, with: {url: "${BASE}/health", status: 204}}',
      command: 'http',
      want: {
        type: 'wait',
        command: 'http',
        config: { url: '${BASE}/health', status: 204 },
        stop: { signal: 'SIGTERM', graceMs: 4000 },
      },
    },
    {
      name: "a 2.x s3 action carries the DAG's s3 block beside its own settings, both unexpanded",
      yaml: 's3: {bucket: b, secret_access_key: "${SECRET}"}\nsteps:\n  - {name: s, action: s3.list, with: {prefix: "${DAY}/"}}',
      command: 'list',
      want: {
        type: 's3',
        command: 'list',
        config: { prefix: '${DAY}/' },
        s3: { bucket: 'b', secret_access_key: '${SECRET}' },
        stop: { signal: 'SIGTERM', graceMs: 4000 },
      },
    },
    {
      name: 'a jq step carries its filter as written, since $names there are jq variables',
      yaml: 'steps:\n  - {executor: jq, command: ".a as $x | $x", script: "{\\"a\\": 1}"}',
      command: '.a as  | ',
      want: {
        type: 'jq',
        command: '.a as $x | $x',
        script: '{"a": 1}',
        config: {},
        stop: { signal: 'SIGTERM', graceMs: 4000 },
      },
    },
    {
      name: 'a step of a DAG with ssh that names no executor runs over the DAG ssh, completed with Dagu defaults',
      yaml: 'ssh: {user: u, host: h, key: /k}\nsteps: [uptime]',
      command: 'uptime',
      want: {
        type: 'ssh',
        command: 'uptime',
        config: { user: 'u', host: 'h', key: '/k', port: '22', strictHostKey: true },
        stop: { signal: 'SIGTERM', graceMs: 4000 },
      },
    },
    {
      name: 'an ssh step with settings of its own uses those alone, not merged with the DAG ssh',
      yaml: 'ssh: {user: u, host: h, port: 2222}\nsteps:\n  - {executor: {type: ssh, config: {user: v, host: other}}, command: ls}',
      command: 'ls',
      want: {
        type: 'ssh',
        command: 'ls',
        config: { user: 'v', host: 'other' },
        stop: { signal: 'SIGTERM', graceMs: 4000 },
      },
    },
    {
      name: "an ssh step's own shell is the remote shell when its settings name none, as Dagu 2.x resolves it",
      yaml: 'ssh: {user: u, host: h}\nshell: zsh\nsteps:\n  - {executor: ssh, shell: bash -o pipefail, command: ls}',
      command: 'ls',
      want: {
        type: 'ssh',
        command: 'ls',
        config: { user: 'u', host: 'h', port: '22', strictHostKey: true, shell: 'bash', shellArgs: ['-o', 'pipefail'] },
        stop: { signal: 'SIGTERM', graceMs: 4000 },
      },
    },
    {
      name: "a DAG-level shell is for local steps: an ssh step's remote shell stays the login shell",
      yaml: 'shell: zsh\nsteps:\n  - {executor: {type: ssh, config: {user: v, host: h}}, command: ls}',
      command: 'ls',
      want: {
        type: 'ssh',
        command: 'ls',
        config: { user: 'v', host: 'h' },
        stop: { signal: 'SIGTERM', graceMs: 4000 },
      },
    },
    {
      name: "an ssh step's settings that name a shell win over the step's shell",
      yaml: 'steps:\n  - {executor: {type: ssh, config: {user: v, host: h, shell: sh}}, shell: bash, command: ls}',
      command: 'ls',
      want: {
        type: 'ssh',
        command: 'ls',
        config: { user: 'v', host: 'h', shell: 'sh' },
        stop: { signal: 'SIGTERM', graceMs: 4000 },
      },
    },
    {
      name: 'an ssh step stops its remote command with signalOnStop, within the grace period of its Pod',
      yaml: 'maxCleanUpTimeSec: 10\nsteps:\n  - {executor: {type: ssh, config: {user: v, host: h}}, command: ls, signalOnStop: SIGINT}',
      command: 'ls',
      want: { type: 'ssh', command: 'ls', config: { user: 'v', host: 'h' }, stop: { signal: 'SIGINT', graceMs: 9000 } },
    },
    {
      name: 'a mail step gets the DAG smtp settings',
      yaml: 'smtp: {host: mail.local, port: "25"}\nsteps:\n  - {executor: {type: mail, config: {to: a@b, subject: hi}}}',
      command: undefined,
      want: {
        type: 'mail',
        config: { to: 'a@b', subject: 'hi' },
        smtp: { host: 'mail.local', port: '25' },
        stop: { signal: 'SIGTERM', graceMs: 4000 },
      },
    },
    {
      name: 'an http, jq or mail step carries signalOnStop too, which stops the runner',
      yaml: 'steps:\n  - {executor: {type: http}, command: "GET http://h/", signalOnStop: SIGUSR1}',
      command: 'GET http://h/',
      want: { type: 'http', command: 'GET http://h/', config: {}, stop: { signal: 'SIGUSR1', graceMs: 4000 } },
    },
  ])('$name', ({ yaml, command, want }) => {
    const { dag, step } = firstStep(yaml);
    expect(executorSpec(dag, step, command)).toEqual(want);
  });
});

describe('the Pod of a step runner step', () => {
  const { dag, step } = firstStep('steps:\n  - {executor: jq, command: .a, script: "{}"}');
  const spec = executorSpec(dag, step, '.a');
  const request: PodRequest = {
    run: { name: 'r', namespace: 'n', uid: 'u', dagName: 'executors', dagRunId: '1' },
    dag,
    step,
    attempt: 0,
    pod: 'p',
    env: [],
    positional: [],
    command: '.a',
    defaultImage: 'busybox:1.36',
    podPreconditions: [],
    logDir: join(mkdtempSync(join(tmpdir(), 'kd-logs-')), 'logs'),
    ...(spec === undefined ? {} : { runner: { spec, image: 'kubedag:test' } }),
  };
  const container = stepPod(request).spec?.containers[0];

  it.each([
    { name: 'runs the runner image', got: () => container?.image, want: 'kubedag:test' },
    {
      name: 'carries the spec as JSON in KUBEDAG_EXECUTOR',
      got: () => container?.env?.find((e) => e.name === 'KUBEDAG_EXECUTOR')?.value,
      want: JSON.stringify(spec),
    },
    {
      name: 'sets neither KUBEDAG_COMMAND nor KUBEDAG_SCRIPT',
      got: () => container?.env?.filter((e) => ['KUBEDAG_COMMAND', 'KUBEDAG_SCRIPT'].includes(e.name)),
      want: [],
    },
    {
      name: 'keeps the POSIX runner, which starts kubedag-step executor',
      got: () => container?.command?.slice(0, 2),
      want: ['/bin/sh', '-c'],
    },
  ])('$name', ({ got, want }) => {
    expect(got()).toEqual(want);
  });

  it('has the runner start kubedag-step executor as the step process', () => {
    expect(runnerScript(request)).toContain('kd_run() { exec kubedag-step executor; }');
  });

  it.each(['SIGUSR1', 'SIGHUP', 'SIGTERM'])(
    'stops kubedag-step with SIGTERM when signalOnStop is %s, which the runner passes on itself',
    (signal) => {
      const { dag: ownDag, step: ownStep } = firstStep(
        `steps:\n  - {executor: {type: http}, command: "GET http://h/", signalOnStop: ${signal}}`,
      );
      const ownSpec = executorSpec(ownDag, ownStep, 'GET http://h/');
      if (ownSpec === undefined) throw new Error('an http step has a spec');
      expect(ownSpec.stop?.signal).toBe(signal);
      const run = runWithFakeRunner({
        ...request,
        dag: ownDag,
        step: ownStep,
        runner: { spec: ownSpec, image: 'kubedag:test' },
      });
      expect([demux(run.log).stdout, run.status]).toEqual(['got TERM\n', 0]);
    },
  );
});

/**
 * Runs the Pod's shell runner as a container's first process (its own process group), with a
 * kubedag-step on the PATH that says which signal reached it, and plays the kubelet: SIGTERM
 * to the runner once the fake has started.
 */
function runWithFakeRunner(request: PodRequest): { status: number | null; log: string } {
  const dir = mkdtempSync(join(tmpdir(), 'kd-fake-runner-'));
  const fake = [
    '#!/bin/sh',
    ...['TERM', 'USR1', 'HUP'].map((s) => `trap 'echo got ${s}; exit 0' ${s}`),
    'touch "$READY"',
    'while :; do sleep 0.05; done',
    '',
  ].join('\n');
  writeFileSync(join(dir, 'kubedag-step'), fake);
  chmodSync(join(dir, 'kubedag-step'), 0o755);
  const env = Object.fromEntries((stepPod(request).spec?.containers[0]?.env ?? []).map((e) => [e.name, e.value ?? '']));
  const kubelet = '(while [ ! -e "$READY" ]; do sleep 0.02; done; kill -TERM $$) & exec /bin/sh -c "$0"';
  const result = spawnSync('setsid', ['/bin/sh', '-c', kubelet, runnerScript(request)], {
    env: {
      ...env,
      PATH: `${dir}:${process.env.PATH ?? ''}`,
      READY: join(dir, 'ready'),
      KUBEDAG_REPORT_FILE: join(dir, 'report'),
    },
    encoding: 'utf8',
    timeout: 15_000,
  });
  return { status: result.status, log: result.stdout };
}

describe('the environment an executor step adds', () => {
  it.each([
    {
      name: 'an ssh key from a Secret arrives as KUBEDAG_SSH_KEY by reference',
      key: { secretKeyRef: { name: 'deploy', key: 'id_ed25519' } },
      want: [{ name: 'KUBEDAG_SSH_KEY', valueFrom: { secretKeyRef: { name: 'deploy', key: 'id_ed25519' } } }],
    },
    { name: 'an ssh key that is a path adds nothing', key: '/keys/id_ed25519', want: [] },
    { name: 'an ssh step without a key adds nothing', key: undefined, want: [] },
  ])('$name', ({ key, want }) => {
    const { dag, step } = firstStep(
      `steps:\n  - {executor: {type: ssh, config: {user: u, host: h${key === undefined ? '' : `, key: ${JSON.stringify(key)}`}}}, command: uptime}`,
    );
    const spec = executorSpec(dag, step, 'uptime');
    expect(executorEnv(spec)).toEqual(want);
  });

  it('puts the key reference in the Pod, next to the spec', () => {
    const { dag, step } = firstStep(
      'steps:\n  - {executor: {type: ssh, config: {user: u, host: h, key: {secretKeyRef: {name: deploy, key: id}}}}, command: uptime}',
    );
    const spec = executorSpec(dag, step, 'uptime');
    if (spec === undefined) throw new Error('an ssh step has a spec');
    const pod = stepPod({
      run: { name: 'r', namespace: 'n', uid: 'u', dagName: 'executors', dagRunId: '1' },
      dag,
      step,
      attempt: 0,
      pod: 'p',
      env: [],
      positional: [],
      command: 'uptime',
      defaultImage: 'busybox:1.36',
      podPreconditions: [],
      logDir: '/tmp/kubedag',
      runner: { spec, image: 'kubedag:test' },
    });
    expect(pod.spec?.containers[0]?.env?.find((e) => e.name === 'KUBEDAG_SSH_KEY')).toEqual({
      name: 'KUBEDAG_SSH_KEY',
      valueFrom: { secretKeyRef: { name: 'deploy', key: 'id' } },
    });
  });
});
