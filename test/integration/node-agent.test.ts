import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { restartProcess } from '../../cluster/controlplane.ts';
import { readLedger } from '../../cluster/node-agent/ledger.ts';
import { pod } from '../builders/pod.ts';
import { clients, createNamespace, deleteNamespace, finished, kubectl, running, waitForPod } from './support.ts';

const { core } = clients();
let ns = '';

beforeAll(async () => {
  ns = await createNamespace(core, 'agent');
});

afterAll(async () => {
  await deleteNamespace(core, ns);
});

describe('a Pod runs as local processes on a node agent', () => {
  it('ends Failed with the exit code, and kubectl logs shows stdout and stderr', async () => {
    await core.createNamespacedPod({
      namespace: ns,
      body: pod('exit-three').shell('echo to-stdout; echo to-stderr >&2; exit 3').build(),
    });
    const done = await waitForPod(core, { namespace: ns, name: 'exit-three' }, 'to finish', finished);
    expect(done.status?.phase).toBe('Failed');
    const terminated = done.status?.containerStatuses?.[0]?.state?.terminated;
    expect(terminated).toMatchObject({ exitCode: 3, reason: 'Error' });
    expect(done.status?.containerStatuses?.[0]?.image).toBe('busybox:1.36');
    const logs = await kubectl('logs', '-n', ns, 'exit-three');
    expect(logs.split('\n').sort()).toEqual(['', 'to-stderr', 'to-stdout']);
  });

  it('ends Succeeded with reason Completed for exit 0, and serves log options', async () => {
    await core.createNamespacedPod({
      namespace: ns,
      body: pod('lines').shell('for i in 1 2 3 4 5; do echo line-$i; done').build(),
    });
    const done = await waitForPod(core, { namespace: ns, name: 'lines' }, 'to finish', finished);
    expect(done.status?.phase).toBe('Succeeded');
    expect(done.status?.containerStatuses?.[0]?.state?.terminated?.reason).toBe('Completed');
    expect(await kubectl('logs', '-n', ns, 'lines', '--tail=2')).toBe('line-4\nline-5\n');
    expect(await kubectl('logs', '-n', ns, 'lines', '--limit-bytes=7')).toBe('line-1\n');
    expect(await kubectl('logs', '-n', ns, 'lines', '--timestamps', '--tail=1')).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z line-5\n$/,
    );
  });

  it('follows a running container log until the container ends', async () => {
    await core.createNamespacedPod({
      namespace: ns,
      body: pod('slow').shell('echo first; sleep 2; echo second').build(),
    });
    await waitForPod(core, { namespace: ns, name: 'slow' }, 'to run', running);
    expect(await kubectl('logs', '-n', ns, 'slow', '--follow')).toBe('first\nsecond\n');
  });

  it('gives the process Secret values as env and as a mounted volume, and a service account token', async () => {
    await core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'creds' }, stringData: { user: 'alice', password: 's3cr3t' } },
    });
    const body = pod('secrets')
      .shell(
        'echo user=$DB_USER; cat /etc/creds/password; echo; test -s /var/run/secrets/kubernetes.io/serviceaccount/token && echo token-ok; cat /var/run/secrets/kubernetes.io/serviceaccount/namespace',
      )
      .env([{ name: 'DB_USER', valueFrom: { secretKeyRef: { name: 'creds', key: 'user' } } }])
      .mount({ name: 'creds', secret: { secretName: 'creds' } }, '/etc/creds')
      .build();
    await core.createNamespacedPod({ namespace: ns, body });
    const done = await waitForPod(core, { namespace: ns, name: 'secrets' }, 'to finish', finished);
    expect(done.status?.phase).toBe('Succeeded');
    expect(await kubectl('logs', '-n', ns, 'secrets')).toBe(`user=alice\ns3cr3t\ntoken-ok\n${ns}\n`);
  });

  it('waits for a missing Secret instead of failing, then runs', async () => {
    const body = pod('late-secret')
      .shell('echo $V')
      .env([{ name: 'V', valueFrom: { secretKeyRef: { name: 'late', key: 'v' } } }])
      .build();
    await core.createNamespacedPod({ namespace: ns, body });
    const waiting = await waitForPod(
      core,
      { namespace: ns, name: 'late-secret' },
      'to report the missing secret',
      (p) => p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CreateContainerConfigError',
    );
    expect(waiting.status?.containerStatuses?.[0]?.state?.waiting?.message).toBe('secret "late" not found');
    await core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'late' }, stringData: { v: 'arrived' } },
    });
    expect((await waitForPod(core, { namespace: ns, name: 'late-secret' }, 'to finish', finished)).status?.phase).toBe(
      'Succeeded',
    );
    expect(await kubectl('logs', '-n', ns, 'late-secret')).toBe('arrived\n');
  });
});

describe('a Pod with init containers, ConfigMaps and shared volumes', () => {
  it('runs init containers in order before the container, sharing an emptyDir', async () => {
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'settings' }, data: { greeting: 'hello', 'app.conf': 'mode=fast\n' } },
    });
    const body = pod('layered')
      .shell('cat /shared/order; echo $GREETING $EXTRA_greeting; cat /conf/app.conf; pwd')
      .build();
    const spec = body.spec as NonNullable<typeof body.spec>;
    spec.volumes = [
      { name: 'shared', emptyDir: {} },
      { name: 'conf', configMap: { name: 'settings', items: [{ key: 'app.conf', path: 'app.conf' }] } },
    ];
    spec.initContainers = [
      {
        name: 'first',
        image: 'busybox',
        command: ['/bin/sh', '-c', 'echo first > /shared/order'],
        volumeMounts: [{ name: 'shared', mountPath: '/shared' }],
      },
      {
        name: 'second',
        image: 'busybox',
        command: ['/bin/sh', '-c', 'echo second >> /shared/order'],
        volumeMounts: [{ name: 'shared', mountPath: '/shared' }],
      },
    ];
    const main = spec.containers[0] as NonNullable<(typeof spec.containers)[0]>;
    main.workingDir = '/tmp/kubedag-workdir-test';
    main.env = [{ name: 'GREETING', valueFrom: { configMapKeyRef: { name: 'settings', key: 'greeting' } } }];
    main.envFrom = [{ prefix: 'EXTRA_', configMapRef: { name: 'settings' } }];
    main.volumeMounts = [
      { name: 'shared', mountPath: '/shared' },
      { name: 'conf', mountPath: '/conf', readOnly: true },
    ];
    await core.createNamespacedPod({ namespace: ns, body });
    const done = await waitForPod(core, { namespace: ns, name: 'layered' }, 'to finish', finished);
    expect(done.status?.phase).toBe('Succeeded');
    expect(done.status?.initContainerStatuses?.map((s) => [s.name, s.state?.terminated?.exitCode])).toEqual([
      ['first', 0],
      ['second', 0],
    ]);
    expect(await kubectl('logs', '-n', ns, 'layered')).toBe(
      'first\nsecond\nhello hello\nmode=fast\n/tmp/kubedag-workdir-test\n',
    );
    const ledger = ledgerOf('layered')
      .filter((e) => e.event === 'start')
      .map((e) => e.container);
    expect(ledger).toEqual(['first', 'second', 'main']);
  });

  it('does not start the container when an init container fails', async () => {
    const body = pod('bad-init').shell('echo never').build();
    (body.spec as NonNullable<typeof body.spec>).initContainers = [
      { name: 'setup', image: 'busybox', command: ['/bin/sh', '-c', 'exit 4'] },
    ];
    await core.createNamespacedPod({ namespace: ns, body });
    const done = await waitForPod(core, { namespace: ns, name: 'bad-init' }, 'to finish', finished);
    expect(done.status?.phase).toBe('Failed');
    expect(done.status?.initContainerStatuses?.[0]?.state?.terminated?.exitCode).toBe(4);
    expect(ledgerOf('bad-init').map((e) => e.container)).toEqual(['setup', 'setup']);
  });

  it('fails a container without a command with a clear reason', async () => {
    await core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: 'no-command' },
        spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'nginx:1.27' }] },
      },
    });
    const done = await waitForPod(core, { namespace: ns, name: 'no-command' }, 'to finish', finished);
    expect(done.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({
      reason: 'StartError',
      message: expect.stringContaining('container has no command') as unknown,
    });
  });

  it('reports the termination message a container writes', async () => {
    await core.createNamespacedPod({
      namespace: ns,
      body: pod('message').shell('echo "all good" > /dev/termination-log').build(),
    });
    const done = await waitForPod(core, { namespace: ns, name: 'message' }, 'to finish', finished);
    expect(done.status?.containerStatuses?.[0]?.state?.terminated?.message).toBe('all good\n');
  });
});

describe('the real scheduler places Pods by node selector', () => {
  it('runs a gpu=true Pod on the gpu node and a hostname-selected Pod on the other node', async () => {
    await core.createNamespacedPod({
      namespace: ns,
      body: pod('gpu-job').shell('echo gpu').onNode({ gpu: 'true' }).build(),
    });
    await core.createNamespacedPod({
      namespace: ns,
      body: pod('node-one-job').shell('echo one').onNode({ 'kubernetes.io/hostname': 'kubedag-node-1' }).build(),
    });
    const gpu = await waitForPod(core, { namespace: ns, name: 'gpu-job' }, 'to finish', finished);
    const one = await waitForPod(core, { namespace: ns, name: 'node-one-job' }, 'to finish', finished);
    expect([gpu.spec?.nodeName, gpu.status?.phase, one.spec?.nodeName, one.status?.phase]).toEqual([
      'kubedag-node-2',
      'Succeeded',
      'kubedag-node-1',
      'Succeeded',
    ]);
    expect(ledgerOf('gpu-job').every((e) => e.node === 'kubedag-node-2')).toBe(true);
    expect(ledgerOf('node-one-job').every((e) => e.node === 'kubedag-node-1')).toBe(true);
  });

  it('leaves a Pod whose selector matches no node Pending and unscheduled', async () => {
    await core.createNamespacedPod({
      namespace: ns,
      body: pod('nowhere').shell('echo never').onNode({ gpu: 'tpu' }).build(),
    });
    const pending = await waitForPod(
      core,
      { namespace: ns, name: 'nowhere' },
      'to be marked unschedulable',
      (p) => p.status?.conditions?.some((c) => c.type === 'PodScheduled' && c.reason === 'Unschedulable') === true,
    );
    await sleep(1000);
    const later = await core.readNamespacedPod({ name: 'nowhere', namespace: ns });
    expect([pending.status?.phase, later.status?.phase, later.spec?.nodeName]).toEqual([
      'Pending',
      'Pending',
      undefined,
    ]);
  });
});

describe('graceful deletion', () => {
  it('lets a process that traps SIGTERM see it and exit on its own', async () => {
    await core.createNamespacedPod({
      namespace: ns,
      body: pod('trapper')
        .shell("trap 'echo got-sigterm; exit 0' TERM; echo ready; while true; do sleep 0.1; done")
        .grace(20)
        .build(),
    });
    await waitForPod(core, { namespace: ns, name: 'trapper' }, 'to run', running);
    await sleep(500);
    const started = Date.now();
    await core.deleteNamespacedPod({ name: 'trapper', namespace: ns });
    await waitForGone(ns, 'trapper');
    expect(Date.now() - started).toBeLessThan(15_000);
    const ledger = ledgerOf('trapper');
    expect(ledger.filter((e) => e.event === 'exit').map((e) => e.exitCode)).toEqual([0]);
  });

  it('kills a process that ignores SIGTERM once the grace period is over', async () => {
    await core.createNamespacedPod({
      namespace: ns,
      body: pod('stubborn').shell("trap '' TERM; while true; do sleep 0.1; done").grace(2).build(),
    });
    await waitForPod(core, { namespace: ns, name: 'stubborn' }, 'to run', running);
    const started = Date.now();
    await core.deleteNamespacedPod({ name: 'stubborn', namespace: ns });
    await waitForGone(ns, 'stubborn');
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(2000);
    expect(
      ledgerOf('stubborn')
        .filter((e) => e.event === 'exit')
        .map((e) => e.exitCode),
    ).toEqual([137]);
  });
});

describe('activeDeadlineSeconds', () => {
  it('stops the containers like the kubelet and keeps the Pod Failed with reason DeadlineExceeded and its log', async () => {
    await core.createNamespacedPod({
      namespace: ns,
      body: pod('deadline')
        .shell("trap 'echo stopped-by-deadline; exit 0' TERM; echo started; while :; do sleep 0.1; done")
        .build(),
    });
    await waitForPod(core, { namespace: ns, name: 'deadline' }, 'to run', running);
    await core.patchNamespacedPod({
      name: 'deadline',
      namespace: ns,
      body: [{ op: 'add', path: '/spec/activeDeadlineSeconds', value: 1 }],
    });
    const done = await waitForPod(core, { namespace: ns, name: 'deadline' }, 'to be stopped', finished);
    expect(done.status).toMatchObject({ phase: 'Failed', reason: 'DeadlineExceeded' });
    expect(await kubectl('logs', '-n', ns, 'deadline')).toBe('started\nstopped-by-deadline\n');
  });
});

describe('a node agent that dies and comes back', () => {
  it('fails the Pods it was running instead of leaving them Running or starting them again', async () => {
    await core.createNamespacedPod({
      namespace: ns,
      body: pod('survivor').shell('echo started; sleep 600').onNode({ gpu: 'true' }).build(),
    });
    await waitForPod(core, { namespace: ns, name: 'survivor' }, 'to run', running);
    await restartProcess(inject('cluster').dir, 'node-agent kubedag-node-2', 'SIGKILL');
    const failed = await waitForPod(
      core,
      { namespace: ns, name: 'survivor' },
      'to be failed by the restarted agent',
      finished,
    );
    expect(failed.status).toMatchObject({ phase: 'Failed', reason: 'NodeAgentRestarted' });
    expect(failed.status?.containerStatuses?.[0]?.state?.terminated?.reason).toBe('NodeAgentRestarted');
    const ledger = ledgerOf('survivor');
    expect(ledger.map((e) => e.event)).toEqual(['start', 'kill-on-restart']);
    await sleep(2000);
    expect(ledgerOf('survivor').filter((e) => e.event === 'start')).toHaveLength(1);
  });

  it('still runs new Pods after the restart', async () => {
    await core.createNamespacedPod({
      namespace: ns,
      body: pod('after-restart').shell('echo alive').onNode({ gpu: 'true' }).build(),
    });
    expect(
      (await waitForPod(core, { namespace: ns, name: 'after-restart' }, 'to finish', finished)).status?.phase,
    ).toBe('Succeeded');
  });
});

async function waitForGone(namespace: string, name: string): Promise<void> {
  const { waitFor } = await import('./support.ts');
  await waitFor(
    `pod ${namespace}/${name} to be deleted`,
    () =>
      core.readNamespacedPod({ name, namespace }).then(
        () => false,
        (e: unknown) => (e as { code?: number }).code === 404,
      ),
    60_000,
    100,
  );
}

function ledgerOf(podName: string): ReturnType<typeof readLedger> {
  const cluster = inject('cluster');
  return cluster.nodes
    .flatMap((node) => readLedger(join(node.ledger)))
    .filter((entry) => entry.namespace === ns && entry.pod === podName);
}
