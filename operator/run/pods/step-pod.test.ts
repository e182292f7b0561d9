import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { podRequestOf } from '../../../test/pod-request.ts';
import { demux, parseReport, runnerScript, stepImage, stepPod, type PodRequest } from './step-pod.ts';

const request = podRequestOf;

/**
 * Runs the runner with the host's /bin/sh, as the step's container would. Output goes to a
 * file, not a pipe, so that a stray background process cannot keep the test waiting.
 */
/** `leader`: the runner leads its own process group, as a container's first process does. */
function execute(
  req: PodRequest,
  env: Record<string, string> = {},
  prefix = '',
  shell = '/bin/sh',
  leader = false,
): { status: number | null; log: string; report: string } {
  const dir = mkdtempSync(join(tmpdir(), 'kd-runner-'));
  const pod = stepPod(req);
  const container = pod.spec?.containers[0];
  const podEnv = Object.fromEntries((container?.env ?? []).map((e) => [e.name, e.value ?? '']));
  const out = openSync(join(dir, 'out'), 'w');
  const argv = [shell, '-c', `${prefix}exec ${shell} -c "$0"`, runnerScript(req)];
  const result = spawnSync(leader ? 'setsid' : (argv[0] ?? shell), leader ? argv : argv.slice(1), {
    env: { PATH: process.env.PATH, ...podEnv, ...env, KUBEDAG_REPORT_FILE: join(dir, 'report') },
    stdio: ['ignore', out, out],
    timeout: 15_000,
  });
  closeSync(out);
  const report = existsSync(join(dir, 'report')) ? readFileSync(join(dir, 'report'), 'utf8') : '';
  return { status: result.status, log: readFileSync(join(dir, 'out'), 'utf8'), report };
}

/**
 * Plays the kubelet's stop: SIGTERM to the runner once the step's command has started (it
 * touches $READY), so that a loaded machine cannot send it before the runner is set up.
 */
const KILL_WHEN_READY = '(while [ ! -e "$READY" ]; do sleep 0.02; done; kill -TERM $$) & ';
/**
 * As KILL_WHEN_READY, a moment after: for a command whose shell must be waiting on its child
 * when the signal comes (bash hands SIGINT on only then; a signal between `touch` and the
 * child's fork, seen on a loaded machine, lets the child run its whole course).
 */
const KILL_AFTER_READY = '(while [ ! -e "$READY" ]; do sleep 0.02; done; sleep 0.3; kill -TERM $$) & ';
const ready = (): Record<string, string> => ({ READY: join(mkdtempSync(join(tmpdir(), 'kd-ready-')), 'ready') });

describe('the step runner', () => {
  it('tags stdout and stderr lines and keeps the exit code', () => {
    const run = execute(
      request('steps:\n  - command: sh -c "echo out; echo err >&2; echo last-no-newline | tr -d \'\\\\n\'; exit 3"'),
    );
    expect(run.status).toBe(3);
    expect(demux(run.log)).toEqual({ stdout: 'out\nlast-no-newline\n', stderr: 'err\n' });
    expect(parseReport(run.report)).toEqual({ preconditionUnmet: false });
  });

  it('keeps stdout and stderr in the step log files and appends start and end lines to the run log', () => {
    const req = request('steps:\n  - {name: step, command: sh -c "echo out; echo err >&2"}', { attempt: 2 });
    const run = execute(req);
    expect(run.status).toBe(0);
    expect(readFileSync(join(req.logDir, 'step.2.stdout'), 'utf8')).toBe('out\n');
    expect(readFileSync(join(req.logDir, 'step.2.stderr'), 'utf8')).toBe('err\n');
    expect(readFileSync(join(req.logDir, 'run.log'), 'utf8')).toMatch(
      /^\S+Z step "step" started\n\S+Z step "step" finished with exit code 0\n$/,
    );
    expect(demux(run.log)).toEqual({ stdout: 'out\n', stderr: 'err\n' });
  });

  it('writes the stdout and stderr redirects relative to the working directory, variables expanded, and still logs', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kd-work-'));
    const req = request(
      'steps:\n  - {command: sh -c "echo out; echo err >&2", stdout: "out/${NAME}.txt", stderr: err.txt}',
      { env: [{ name: 'NAME', value: 'result' }] },
    );
    const run = execute(req, {}, `cd '${dir}' && `);
    expect(run.status).toBe(0);
    expect(readFileSync(join(dir, 'out', 'result.txt'), 'utf8')).toBe('out\n');
    expect(readFileSync(join(dir, 'err.txt'), 'utf8')).toBe('err\n');
    expect(demux(run.log)).toEqual({ stdout: 'out\n', stderr: 'err\n' });
  });

  it('fails the step before it runs when its stdout redirect cannot be written', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'kd-work-')), 'file');
    execute(request(`steps:\n  - {command: touch ${file}}`));
    const run = execute(request(`steps:\n  - {command: echo never, stdout: ${file}/below}`));
    expect(run.status).toBe(1);
    expect(demux(run.log)).toEqual({ stdout: '', stderr: `kubedag: cannot write stdout to ${file}/below\n` });
  });

  it('expands variables in the shell from the Pod environment and positional parameters', () => {
    const run = execute(
      request('steps:\n  - echo "$GREETING $1"', {
        env: [{ name: 'GREETING', value: 'hello' }],
        positional: ['world'],
      }),
    );
    expect(demux(run.log).stdout).toBe('hello world\n');
  });

  it('runs a script with its shebang', () => {
    const run = execute(request('steps:\n  - script: "#!/bin/sh\\necho from-script $DAG_RUN_STEP_NAME"'));
    expect(demux(run.log).stdout).toBe('from-script script_1\n');
  });

  const interpreterCases: { name: string; yaml: string; positional?: string[]; want: string }[] = [
    {
      name: 'runs the script with its command as the interpreter, arguments included',
      yaml: 'steps:\n  - command: awk -v WHO=awk -f\n    script: \'BEGIN { print "hello from " WHO }\'',
      want: 'hello from awk\n',
    },
    {
      name: "prefers the command over the script's shebang",
      yaml: 'steps:\n  - command: sh\n    script: "#!/bin/false\\necho the command won"',
      want: 'the command won\n',
    },
    {
      name: "prefers the command over the step's shell",
      yaml: 'steps:\n  - command: awk -f\n    shell: /bin/false\n    script: \'BEGIN { print "not the shell" }\'',
      want: 'not the shell\n',
    },
    {
      name: "hands the run's positional parameters to the script after its path",
      yaml: 'steps:\n  - command: sh -u\n    script: \'echo "$1 and $2"\'',
      positional: ['first', 'second'],
      want: 'first and second\n',
    },
  ];
  it.each(interpreterCases)('$name', ({ yaml, positional, want }) => {
    const run = execute(request(yaml, { positional: positional ?? [] }));
    expect([run.status, demux(run.log).stdout]).toEqual([0, want]);
  });

  it.runIf(existsSync('/usr/bin/python3'))('runs a script with python3 -u when that is its command', () => {
    const run = execute(
      request(
        'steps:\n  - command: python3 -u\n    script: |\n      import sys\n      print("python", sys.flags.optimize)',
      ),
    );
    expect([run.status, demux(run.log).stdout]).toEqual([0, 'python 0\n']);
  });

  it('reports an unmet command precondition and skips the command', () => {
    const run = execute(
      request('steps:\n  - {command: echo ran, preconditions: ["test -f /definitely/not/here"]}', {
        podPreconditions: [{ condition: 'test -f /definitely/not/here' }],
      }),
    );
    expect(run.status).toBe(0);
    expect(run.log).toBe('');
    expect(parseReport(run.report).preconditionUnmet).toBe(true);
  });

  it('evaluates an expected precondition with command substitution, exactly and as a regex', () => {
    const met = execute(
      request('steps:\n  - echo ran', {
        podPreconditions: [
          { condition: '`echo abc`', expected: 're:^a.c$' },
          { condition: '`echo x`', expected: 'x' },
        ],
      }),
    );
    expect(demux(met.log).stdout).toBe('ran\n');
    const unmet = execute(
      request('steps:\n  - echo ran', { podPreconditions: [{ condition: '`echo abc`', expected: 'abd' }] }),
    );
    expect(parseReport(unmet.report).preconditionUnmet).toBe(true);
  });

  it('inverts a negated precondition (Dagu 2.x negate), command and expected value alike', () => {
    const met = execute(
      request('steps:\n  - echo ran', {
        podPreconditions: [
          { condition: 'test -f /definitely/not/here', negate: true },
          { condition: '`echo abc`', expected: 'abd', negate: true },
        ],
      }),
    );
    expect(demux(met.log).stdout).toBe('ran\n');
    const unmet = execute(
      request('steps:\n  - echo ran', {
        podPreconditions: [{ condition: '`echo abc`', expected: 're:^a', negate: true }],
      }),
    );
    expect(parseReport(unmet.report).preconditionUnmet).toBe(true);
  });

  it('reports the repeat condition value after the command', () => {
    const req = request('steps:\n  - {command: echo, repeatPolicy: {condition: "`cat $STATE_FILE`", expected: done}}');
    const dir = mkdtempSync(join(tmpdir(), 'kd-state-'));
    spawnSync('/bin/sh', ['-c', `printf 'pending\\nmore' > ${dir}/state`]);
    const run = execute(req, { STATE_FILE: `${dir}/state` });
    expect(parseReport(run.report)).toEqual({ preconditionUnmet: false, conditionValue: 'pending\nmore' });
  });

  it('forwards a stop signal to the running command', () => {
    const req = request(
      'steps:\n  - "trap \'echo got-term; exit 0\' TERM; touch \\"$READY\\"; while :; do sleep 0.05; done"',
    );
    // The wrapper plays the kubelet: it sends SIGTERM to the runner once the command runs.
    const run = execute(req, ready(), KILL_WHEN_READY);
    expect(demux(run.log).stdout).toBe('got-term\n');
    expect(run.status).toBe(0);
  });

  it('never starts the command when the stop comes before it, and ends as a SIGTERM would', () => {
    // The precondition signals readiness and lingers, so the stop lands before the command.
    const req = request('steps:\n  - echo ran', { podPreconditions: [{ condition: 'touch "$READY"; sleep 0.5' }] });
    const run = execute(req, ready(), KILL_WHEN_READY);
    expect(demux(run.log).stdout).toBe('');
    expect(run.status).toBe(143);
  });

  it('stops every process of the step, not just its shell, and keeps the lines already written', () => {
    const req = request('steps:\n  - "echo before; touch \\"$READY\\"; sleep 30; echo never"');
    const started = Date.now();
    const run = execute(req, ready(), KILL_WHEN_READY, '/bin/sh', true);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(demux(run.log).stdout).toBe('before\n');
    expect(run.status).toBe(143);
  });

  it.runIf(existsSync('/bin/bash'))(
    'delivers SIGINT to a command without its own handler where the shell allows it (bash)',
    () => {
      const req = request('steps:\n  - {command: touch "$READY" && sleep 30, signalOnStop: SIGINT}');
      const started = Date.now();
      const run = execute(req, ready(), KILL_AFTER_READY, '/bin/bash', true);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(run.status).toBe(130);
    },
  );
});

describe('stepPod', () => {
  it('builds an owned, labelled Pod with the image, selector, env and grace period', () => {
    const req = request(
      'maxCleanUpTimeSec: 9\nworkerSelector: {zone: a}\nenv: [A=1]\nsteps:\n  - {name: build, command: make, workerSelector: {gpu: "true"}, env: [B=2]}',
      { env: [{ name: 'A', value: '1' }], workingDir: '/src' },
    );
    const pod = stepPod(req);
    expect(pod.metadata).toMatchObject({
      name: 'pods-step-0',
      namespace: 'team',
      labels: {
        'kubedag.io/dag': 'pods',
        'kubedag.io/run-id': 'r1',
        'kubedag.io/run': 'pods-r1-abc',
        'kubedag.io/step': 'build',
        'kubedag.io/attempt': '0',
      },
      annotations: { 'kubedag.io/step-name': 'build' },
      ownerReferences: [{ kind: 'DAGRun', name: 'pods-r1-abc', uid: 'uid-1', controller: true }],
    });
    expect(pod.spec).toMatchObject({
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 9,
      nodeSelector: { zone: 'a', gpu: 'true' },
    });
    const container = pod.spec?.containers[0];
    expect(container?.image).toBe('busybox:1.36');
    expect(container?.workingDir).toBe('/src');
    expect(Object.fromEntries((container?.env ?? []).map((e) => [e.name, e.value]))).toMatchObject({
      A: '1',
      B: '2',
      DAG_NAME: 'pods',
      DAG_RUN_ID: 'r1',
      DAG_RUN_STEP_NAME: 'build',
      KUBEDAG_COMMAND: 'make',
    });
  });

  it('takes the image from a docker executor, then the Pod settings, then the default', () => {
    const docker = request(
      'kubernetes: {image: python:3.13}\nsteps:\n  - {command: x, executor: {type: docker, config: {image: alpine:3}}}',
    );
    expect(stepImage(docker.step, 'def')).toBe('alpine:3');
    const settings = request(
      'kubernetes: {image: python:3.13}\nsteps:\n  - {command: x, kubernetes: {image: node:24}}',
    );
    expect(stepImage(settings.step, 'def')).toBe('node:24');
    expect(stepImage(request('steps: [x]').step, 'def')).toBe('def');
  });

  it('gives a step that does not run in the DAG container nothing of it: not its image, pull policy, env or user', () => {
    const req = request(
      'container: {image: a, pullPolicy: missing, user: "1000:2000", env: [C=only-container]}\nsteps: [{command: x, executor: shell}]',
    );
    const pod = stepPod(req);
    const container = pod.spec?.containers[0];
    expect([container?.image, container?.imagePullPolicy, pod.spec?.securityContext]).toEqual([
      'busybox:1.36',
      undefined,
      undefined,
    ]);
    expect(container?.env?.map((e) => e.name)).not.toContain('C');
  });

  it('leaves a Kubernetes-executor step without a command to its image entrypoint', () => {
    const container = stepPod(request('steps:\n  - {name: serve, type: kubernetes, with: {image: nginx:1}}')).spec
      ?.containers[0];
    expect(container?.image).toBe('nginx:1');
    expect(container).not.toHaveProperty('command');
  });

  it('exposes secrets by reference to the run Secret, over a variable of the same name', () => {
    const req = request('env: [TOKEN=plain]\nsteps: [x]', {
      env: [{ name: 'TOKEN', value: 'plain' }],
      secrets: { secretName: 'run-secrets', names: ['TOKEN', 'OTHER'] },
    });
    const env = stepPod(req).spec?.containers[0]?.env ?? [];
    expect(env.filter((e) => e.name === 'TOKEN')).toEqual([
      { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'run-secrets', key: 'TOKEN' } } },
    ]);
    expect(env.find((e) => e.name === 'OTHER')?.valueFrom?.secretKeyRef?.name).toBe('run-secrets');
    expect(JSON.stringify(env)).not.toContain('plain');
  });

  it('leaves out values too large for an environment string and fails the step only when it uses one', () => {
    const huge = 'x'.repeat(200 * 1024);
    const unused = request('steps: [echo fine]', { env: [{ name: 'BIG', value: huge }] });
    const ran = execute(unused);
    expect(ran.status).toBe(0);
    expect(ran.log).toContain('E kubedag: not set, too large for an environment variable: BIG (204800 bytes)');
    expect(JSON.stringify(stepPod(unused))).not.toContain(huge);
    const used = execute(request('steps:\n  - echo ${BIG}', { env: [{ name: 'BIG', value: huge }] }));
    expect(used.status).toBe(1);
    expect(used.log).toContain('E kubedag: the step uses BIG (204800 bytes), too large for an environment variable');
  });
});
