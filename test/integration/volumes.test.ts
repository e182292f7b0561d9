import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { V1PersistentVolume, V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readState, restartProcess } from '../../cluster/controlplane.ts';
import { stopProcess } from '../../cluster/processes.ts';
import { pod } from '../builders/pod.ts';
import { clients, createNamespace, deleteNamespace, finished, kubectl, waitFor, waitForPod } from './support.ts';

const { core } = clients();
let ns = '';

beforeAll(async () => {
  ns = await createNamespace(core, 'volumes');
});

afterAll(async () => {
  await deleteNamespace(core, ns);
});

function claim(name: string, accessModes: string[] = ['ReadWriteOnce']): V1PersistentVolumeClaim {
  return { metadata: { name }, spec: { accessModes, resources: { requests: { storage: '1Gi' } } } };
}

const onClaim = (name: string, claimName: string, readOnly = false): ReturnType<typeof pod> =>
  pod(name).mount({ name: 'data', persistentVolumeClaim: { claimName } }, '/data', { readOnly });

async function runToEnd(body: V1Pod): Promise<{ pod: V1Pod; log: string }> {
  const name = body.metadata?.name ?? '';
  await core.createNamespacedPod({ namespace: ns, body });
  const done = await waitForPod(core, { namespace: ns, name }, 'to finish', finished);
  return { pod: done, log: await kubectl('logs', '-n', ns, name) };
}

/** A claim and the volume bound to it. */
async function volumeOf(claimName: string): Promise<{ claim: V1PersistentVolumeClaim; pv: V1PersistentVolume }> {
  const bound = await core.readNamespacedPersistentVolumeClaim({ name: claimName, namespace: ns });
  return { claim: bound, pv: await core.readPersistentVolume({ name: bound.spec?.volumeName ?? '' }) };
}

async function gone(what: string, read: () => Promise<unknown>): Promise<void> {
  await waitFor(
    `${what} to be gone`,
    () =>
      read().then(
        () => false,
        (e: unknown) => (e as { code?: number }).code === 404,
      ),
    60_000,
    200,
  );
}

describe('claims of the default StorageClass, provisioned on the node the scheduler chose', () => {
  it('gives a claim without a class the default one, kubedag-local, which waits for its first consumer', async () => {
    const created = await core.createNamespacedPersistentVolumeClaim({ namespace: ns, body: claim('data') });
    expect(created.spec?.storageClassName).toBe('kubedag-local');
    await waitFor(
      'the claim to wait for a consumer',
      async () =>
        (await core.readNamespacedPersistentVolumeClaim({ name: 'data', namespace: ns })).status?.phase === 'Pending',
      10_000,
    );
  });

  it('schedules a Pod of the claim, makes a local volume with node affinity to its node, and applies fsGroup to it as the working directory', async () => {
    const body = onClaim('writer', 'data')
      .workingDir('/data')
      .podSecurity({ runAsUser: 1000, fsGroup: 2000 })
      .shell('id -u; stat -c "%g %a" .; echo hello > greeting')
      .build();
    const { pod: done, log } = await runToEnd(body);
    expect([done.status?.phase, log]).toEqual(['Succeeded', '1000\n2000 2777\n']);
    const { claim: bound, pv } = await volumeOf('data');
    expect([bound.status?.phase, pv.metadata?.annotations?.['pv.kubernetes.io/provisioned-by']]).toEqual([
      'Bound',
      'kubedag.io/local',
    ]);
    expect(pv.spec?.nodeAffinity?.required?.nodeSelectorTerms[0]?.matchExpressions?.[0]).toEqual({
      key: 'kubernetes.io/hostname',
      operator: 'In',
      values: [done.spec?.nodeName],
    });
    expect(pv.spec?.local?.path).toBe(join(inject('cluster').dir, 'volumes', pv.metadata?.name ?? ''));
  });

  it('lands a second Pod of the ReadWriteOnce claim on the same node, where it reads what the first wrote', async () => {
    const writer = await core.readNamespacedPod({ name: 'writer', namespace: ns });
    const { pod: done, log } = await runToEnd(onClaim('reader', 'data').shell('cat /data/greeting').build());
    expect([done.status?.phase, done.spec?.nodeName, log]).toEqual(['Succeeded', writer.spec?.nodeName, 'hello\n']);
  });

  it('mounts a claim read-only when the volume says so', async () => {
    const body = onClaim('read-only', 'data', true)
      .shell('cat /data/greeting; touch /data/x 2>/dev/null || echo read-only')
      .build();
    expect((await runToEnd(body)).log).toBe('hello\nread-only\n');
  });

  it('removes the volume and its directory once the claim is deleted', async () => {
    const { pv } = await volumeOf('data');
    const path = pv.spec?.local?.path ?? '';
    expect(existsSync(join(path, 'greeting'))).toBe(true);
    // The claim is protected while Pods use it: they go first.
    for (const name of ['writer', 'reader', 'read-only']) await core.deleteNamespacedPod({ name, namespace: ns });
    await core.deleteNamespacedPersistentVolumeClaim({ name: 'data', namespace: ns });
    await gone('the volume', () => core.readPersistentVolume({ name: pv.metadata?.name ?? '' }));
    expect(existsSync(path)).toBe(false);
  });
});

describe('a ReadWriteMany claim', () => {
  it('is a hostPath volume without node affinity that Pods on both nodes share', async () => {
    await core.createNamespacedPersistentVolumeClaim({ namespace: ns, body: claim('shared', ['ReadWriteMany']) });
    const first = await runToEnd(
      onClaim('on-node-1', 'shared')
        .onNode({ 'kubernetes.io/hostname': 'kubedag-node-1' })
        .shell('echo from-node-1 > /data/note')
        .build(),
    );
    const second = await runToEnd(
      onClaim('on-node-2', 'shared').onNode({ gpu: 'true' }).shell('cat /data/note').build(),
    );
    const { pv } = await volumeOf('shared');
    expect([first.pod.spec?.nodeName, second.pod.spec?.nodeName, second.log]).toEqual([
      'kubedag-node-1',
      'kubedag-node-2',
      'from-node-1\n',
    ]);
    expect([pv.spec?.hostPath?.type, pv.spec?.nodeAffinity]).toEqual(['Directory', undefined]);
  });
});

describe('a claim that is not bound yet', () => {
  it('keeps a Pod placed on a node directly in ContainerCreating until the claim is bound, then runs it', async () => {
    await core.createNamespacedPersistentVolumeClaim({ namespace: ns, body: claim('late') });
    await core.createNamespacedPod({
      namespace: ns,
      body: onClaim('early', 'late').on('kubedag-node-1').shell('echo ran > /data/f; cat /data/f').build(),
    });
    const waiting = await waitForPod(
      core,
      { namespace: ns, name: 'early' },
      'to wait for its claim',
      (p) =>
        p.status?.containerStatuses?.[0]?.state?.waiting?.message ===
        'waiting for persistentvolumeclaim "late" to be bound',
    );
    expect([waiting.status?.phase, waiting.status?.containerStatuses?.[0]?.state?.waiting?.reason]).toEqual([
      'Pending',
      'ContainerCreating',
    ]);
    // What the scheduler does for a Pod it places: name the node the volume must be made on.
    const late = await core.readNamespacedPersistentVolumeClaim({ name: 'late', namespace: ns });
    const annotations = { ...late.metadata?.annotations, 'volume.kubernetes.io/selected-node': 'kubedag-node-1' };
    await core.patchNamespacedPersistentVolumeClaim({
      name: 'late',
      namespace: ns,
      body: [{ op: 'add', path: '/metadata/annotations', value: annotations }],
    });
    const done = await waitForPod(core, { namespace: ns, name: 'early' }, 'to finish', finished);
    expect([done.status?.phase, await kubectl('logs', '-n', ns, 'early')]).toEqual(['Succeeded', 'ran\n']);
  });
});

describe('a provisioner that was not running', () => {
  it('provisions, when it starts, the claims that were waiting for it', async () => {
    const dir = inject('cluster').dir;
    const provisioner = (await readState(dir))?.processes.find((p) => p.name === 'provisioner');
    if (provisioner === undefined) throw new Error('no provisioner in the cluster state');
    await stopProcess(provisioner);
    await core.createNamespacedPersistentVolumeClaim({ namespace: ns, body: claim('while-down') });
    await core.createNamespacedPod({
      namespace: ns,
      body: onClaim('patient', 'while-down').shell('echo patient').build(),
    });
    await waitFor(
      'the scheduler to choose a node for the claim',
      async () =>
        (await core.readNamespacedPersistentVolumeClaim({ name: 'while-down', namespace: ns })).metadata?.annotations?.[
          'volume.kubernetes.io/selected-node'
        ] !== undefined,
      30_000,
    );
    await restartProcess(dir, 'provisioner', 'SIGTERM');
    const done = await waitForPod(core, { namespace: ns, name: 'patient' }, 'to finish', finished, 90_000);
    expect(done.status?.phase).toBe('Succeeded');
  });
});
