import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { PassThrough, Readable } from 'node:stream';
import { join } from 'node:path';
import { Exec, RbacAuthorizationV1Api, type V1Status } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { execInContainer, type ContainerRef } from '../../step/container-exec.ts';
import { pod } from '../builders/pod.ts';
import {
  clients,
  createNamespace,
  deleteNamespace,
  finished,
  kubectl,
  running,
  waitFor,
  waitForPod,
} from './support.ts';

const { kc, core } = clients();
let ns = '';
const unique = randomBytes(4).toString('hex');

/** A Pod whose one container sleeps: something to exec into. */
async function sleeper(
  name: string,
  configure: (b: ReturnType<typeof pod>) => ReturnType<typeof pod> = (b) => b,
): Promise<ContainerRef> {
  const body = configure(pod(name).shell(`echo from-main > /tmp/main-${unique}; exec sleep 600`)).build();
  if (body.spec !== undefined) body.spec.terminationGracePeriodSeconds = 1;
  await core.createNamespacedPod({ namespace: ns, body });
  await waitForPod(core, { namespace: ns, name }, 'to run', running);
  return { namespace: ns, pod: name, container: 'main' };
}

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The real kubectl exec, with input on its stdin when given. */
function kubectlExec(
  ref: ContainerRef,
  command: string[],
  input?: string,
  env: Record<string, string> = {},
): Promise<Ran> {
  const args = [
    '--kubeconfig',
    inject('cluster').kubeconfig,
    'exec',
    ...(input === undefined ? [] : ['-i']),
    '-n',
    ref.namespace,
    ref.pod,
    '-c',
    ref.container,
    '--',
    ...command,
  ];
  const child = spawn(inject('binaries').kubectl, args, {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (d: Buffer) => out.push(d));
  child.stderr.on('data', (d: Buffer) => err.push(d));
  child.stdin.end(input ?? '');
  return new Promise((resolve) => {
    child.on('close', (code) => {
      resolve({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() });
    });
  });
}

/** client-node's Exec as it is, without the step module's wrapper. */
async function clientExec(
  ref: ContainerRef,
  command: string[],
  stdin?: Readable,
): Promise<{ status: V1Status | undefined; stdout: string; stderr: string }> {
  const [stdout, stderr] = [new PassThrough(), new PassThrough()];
  const chunks = { out: [] as Buffer[], err: [] as Buffer[] };
  stdout.on('data', (d: Buffer) => chunks.out.push(d));
  stderr.on('data', (d: Buffer) => chunks.err.push(d));
  let status: V1Status | undefined;
  const ws = await new Exec(kc).exec(
    ref.namespace,
    ref.pod,
    ref.container,
    command,
    stdout,
    stderr,
    stdin ?? null,
    false,
    (s) => (status = s),
  );
  await new Promise((resolve) => ws.once('close', resolve));
  return { status, stdout: Buffer.concat(chunks.out).toString(), stderr: Buffer.concat(chunks.err).toString() };
}

function collect(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (d: Buffer) => chunks.push(d));
  return { stream, text: () => Buffer.concat(chunks).toString() };
}

let plain: ContainerRef;

beforeAll(async () => {
  ns = await createNamespace(core, 'exec');
  plain = await sleeper('plain');
});

afterAll(async () => {
  await deleteNamespace(core, ns);
});

describe('kubectl exec through kube-apiserver to the node agent', () => {
  it("gives stdout and stderr apart and exits with the command's exit code", async () => {
    const ran = await kubectlExec(plain, ['sh', '-c', 'echo to-out; echo to-err >&2; exit 3']);
    expect([ran.code, ran.stdout]).toEqual([3, 'to-out\n']);
    expect(ran.stderr).toContain('to-err\n');
    expect(ran.stderr).not.toContain('to-out');
  });

  it('exits 0 for a command that succeeds', async () => {
    expect(await kubectlExec(plain, ['true'])).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('passes stdin to the command until it ends', async () => {
    const ran = await kubectlExec(plain, ['sh', '-c', 'wc -l; cat /dev/null'], 'one\ntwo\nthree\n');
    expect([ran.code, ran.stdout.trim()]).toEqual([0, '3']);
  });

  it("runs in the container's own root, where the container's files are and where its writes stay", async () => {
    const ran = await kubectlExec(plain, [
      'sh',
      '-c',
      `cat /tmp/main-${unique}; echo from-exec > /exec-${unique}; cat /exec-${unique}`,
    ]);
    expect([ran.code, ran.stdout]).toEqual([0, 'from-main\nfrom-exec\n']);
    expect(existsSync(`/exec-${unique}`)).toBe(false);
    expect((await kubectlExec(plain, ['cat', `/exec-${unique}`])).stdout).toBe('from-exec\n');
  });

  it('delivers a 20 MB output whole', async () => {
    const ran = await kubectlExec(plain, ['head', '-c', '20000000', '/dev/zero']);
    expect([ran.code, ran.stdout.length]).toEqual([0, 20_000_000]);
  });

  it('refuses a SPDY exec with a message that names the protocols it speaks', async () => {
    const ran = await kubectlExec(plain, ['true'], undefined, { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' });
    expect(ran.code).not.toBe(0);
    expect(ran.stderr).toContain('exec over WebSocket only');
  });

  it('fails with exit code 127 for a command the container does not have', async () => {
    const ran = await kubectlExec(plain, [`no-such-command-${unique}`]);
    expect(ran.code).toBe(127);
  });
});

describe("the exec runs as the container's process does", () => {
  it("has the container's environment, working directory and user", async () => {
    const ref = await sleeper('configured', (b) =>
      b
        .env([{ name: 'GREETING', value: 'hello' }])
        .workingDir(`/opt/exec-${unique}`)
        .security({ runAsUser: 1234, runAsGroup: 2345 }),
    );
    const ran = await kubectlExec(ref, ['sh', '-c', 'echo "$GREETING"; pwd; id -u; id -g']);
    expect([ran.code, ran.stdout]).toEqual([0, `hello\n/opt/exec-${unique}\n1234\n2345\n`]);
  });
});

describe('client-node Exec through kube-apiserver', () => {
  it('reports the exit code in the status and keeps stderr apart', async () => {
    const ran = await clientExec(plain, ['sh', '-c', 'echo out; echo err >&2; exit 7']);
    expect([ran.stdout, ran.stderr]).toEqual(['out\n', 'err\n']);
    expect(ran.status).toMatchObject({
      status: 'Failure',
      reason: 'NonZeroExitCode',
      details: { causes: [{ reason: 'ExitCode', message: '7' }] },
    });
  });

  it('reports Success for exit 0 and reads stdin to its end', async () => {
    const ran = await clientExec(plain, ['sh', '-c', 'tr a-z A-Z'], Readable.from([Buffer.from('quiet\n')]));
    expect([ran.status?.status, ran.stdout]).toEqual(['Success', 'QUIET\n']);
  });

  it('keeps serving after a client resets the connection in the middle of a large output', async () => {
    const ws = await new Exec(kc).exec(
      ns,
      plain.pod,
      'main',
      ['head', '-c', '50000000', '/dev/zero'],
      new PassThrough(),
      new PassThrough(),
      null,
      false,
    );
    await new Promise((resolve) => ws.once('message', resolve));
    ws.terminate();
    expect(await kubectlExec(plain, ['echo', 'still-here'])).toEqual({ code: 0, stdout: 'still-here\n', stderr: '' });
  });

  it('ends the command with its container, as a runtime tears the container down', async () => {
    const body = pod('short').shell('sleep 3').build();
    await core.createNamespacedPod({ namespace: ns, body });
    await waitForPod(core, { namespace: ns, name: 'short' }, 'to run', running);
    const started = Date.now();
    const ran = await clientExec({ namespace: ns, pod: 'short', container: 'main' }, ['sleep', '60']);
    expect(ran.status?.details?.causes?.[0]).toEqual({ reason: 'ExitCode', message: '137' });
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('leaves the command running when the client goes away, as container runtimes do', async () => {
    const ws = await new Exec(kc).exec(
      ns,
      plain.pod,
      'main',
      ['sh', '-c', `sleep 2; echo survived > /tmp/left-${unique}`],
      new PassThrough(),
      new PassThrough(),
      null,
      false,
    );
    ws.close();
    await waitFor(
      'the command to finish after the client left',
      async () => (await kubectlExec(plain, ['cat', `/tmp/left-${unique}`])).stdout === 'survived\n',
      20_000,
    );
  });
});

describe("execInContainer, the step runner's exec", () => {
  it('gives the exit code, stdout and stderr apart, with nothing of its own on stderr', async () => {
    const [out, err] = [collect(), collect()];
    const result = await execInContainer(kc, plain, {
      command: ['sh', '-c', 'echo out; echo err >&2; exit 5'],
      stdout: out.stream,
      stderr: err.stream,
    });
    expect([result, out.text(), err.text()]).toEqual([{ exitCode: 5, stopped: false }, 'out\n', 'err\n']);
  });

  it('stops the remote command and what it started on abort, before the grace period; the command does not finish its work', async () => {
    const controller = new AbortController();
    const [out, err] = [collect(), collect()];
    const marker = `/tmp/stopped-${unique}`;
    const running = execInContainer(kc, plain, {
      command: ['sh', '-c', `echo started; sleep 5; echo finished > ${marker}`],
      stdout: out.stream,
      stderr: err.stream,
      signal: controller.signal,
      graceMs: 4000,
    });
    await waitFor('the command to start', () => Promise.resolve(out.text() === 'started\n'), 10_000);
    const abortedAt = Date.now();
    controller.abort();
    const result = await running;
    // Before the grace period: SIGTERM ended the command and the sleep it waited for.
    expect([result, Date.now() - abortedAt < 2000]).toEqual([{ exitCode: 143, stopped: true }, true]);
    await new Promise((resolve) => setTimeout(resolve, 6000));
    expect((await kubectlExec(plain, ['sh', '-c', `cat ${marker} 2>/dev/null || echo absent`])).stdout).toBe(
      'absent\n',
    );
  });

  it('kills a command that ignores the stop signal once the grace period is over', async () => {
    const controller = new AbortController();
    const [out, err] = [collect(), collect()];
    const running = execInContainer(kc, plain, {
      command: ['sh', '-c', 'trap "" TERM; echo started; sleep 30'],
      stdout: out.stream,
      stderr: err.stream,
      signal: controller.signal,
      graceMs: 1000,
    });
    await waitFor('the command to start', () => Promise.resolve(out.text() === 'started\n'), 10_000);
    controller.abort();
    expect(await running).toEqual({ exitCode: 137, stopped: true });
  });

  it('works from inside a Pod as kubedag-step with its service account, given get on pods and create and get on pods/exec only', async () => {
    const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
    await core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name: 'execer' } } });
    // What the chart's step-exec ClusterRole grants, less pods/log (no logPattern here).
    const rules = [
      { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
      { apiGroups: [''], resources: ['pods/exec'], verbs: ['create', 'get'] },
    ];
    await rbac.createNamespacedRole({ namespace: ns, body: { metadata: { name: 'execer' }, rules } });
    await rbac.createNamespacedRoleBinding({
      namespace: ns,
      body: {
        metadata: { name: 'execer' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'execer' },
        subjects: [{ kind: 'ServiceAccount', name: 'execer', namespace: ns }],
      },
    });
    // The step runner the local cluster puts on the node agents' PATH, as a step Pod runs it:
    // never this checkout, which a Pod need not see.
    const spec = {
      type: 'container-exec',
      config: {},
      argv: ['sh', '-c', 'echo via-service-account; exit 4'],
      exec: { namespace: ns, pod: 'plain', container: 'main', stopSignal: 'SIGTERM', graceMs: 1000 },
    };
    const body = pod('execer').build();
    if (body.spec !== undefined) {
      body.spec.serviceAccountName = 'execer';
      const container = body.spec.containers[0] ?? { name: '' };
      container.command = ['sh', '-c', 'kubedag-step executor; echo "exit $?"'];
      container.env = [...(container.env ?? []), { name: 'KUBEDAG_EXECUTOR', value: JSON.stringify(spec) }];
    }
    await core.createNamespacedPod({ namespace: ns, body });
    const done = await waitForPod(core, { namespace: ns, name: 'execer' }, 'to finish', finished);
    const log = await kubectl('logs', '-n', ns, 'execer');
    expect([done.status?.phase, log]).toEqual(['Succeeded', 'via-service-account\nexit 4\n']);
  });

  it('stops the remote command when the process that runs the exec dies', async () => {
    const marker = `/tmp/orphaned-${unique}`;
    const module = join(process.cwd(), 'step', 'container-exec.ts');
    const script = [
      `const { execKubeConfig, execInContainer } = await import(${JSON.stringify(module)});`,
      `await execInContainer(execKubeConfig(process.env, process.env.KUBECONFIG), { namespace: ${JSON.stringify(ns)}, pod: 'plain', container: 'main' }, { command: ['sh', '-c', 'echo started; sleep 5; echo finished > ${marker}'], stdout: process.stdout, stderr: process.stderr, graceMs: 1000 });`,
    ].join('\n');
    const client = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, KUBECONFIG: inject('cluster').kubeconfig },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve) =>
      client.stdout.on('data', (d: Buffer) => {
        if (d.toString().includes('started')) resolve();
      }),
    );
    client.kill('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 6000));
    expect((await kubectlExec(plain, ['sh', '-c', `cat ${marker} 2>/dev/null || echo absent`])).stdout).toBe(
      'absent\n',
    );
  });

  it('fails with a clear error when the container has ended', async () => {
    const body = pod('ended').shell('exit 0').build();
    await core.createNamespacedPod({ namespace: ns, body });
    await waitForPod(core, { namespace: ns, name: 'ended' }, 'to finish', finished);
    const [out, err] = [collect(), collect()];
    await expect(
      execInContainer(
        kc,
        { namespace: ns, pod: 'ended', container: 'main' },
        { command: ['true'], stdout: out.stream, stderr: err.stream },
      ),
    ).rejects.toThrow(/exec in .*\/ended container main/);
  });
});
