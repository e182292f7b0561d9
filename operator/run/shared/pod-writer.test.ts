import type { CoreV1Api, RbacAuthorizationV1Api, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { apiErrorMessage, createFailure } from '../../../core/kube/errors.ts';
import type { Informer } from '../../../core/kube/informer.ts';
import type { PolicyLevel } from '../../../core/policy/index.ts';
import { PodWriter } from './pod-writer.ts';

/** A writer whose API records the Pods it is asked to create. */
function writer(level: PolicyLevel): { pods: PodWriter; created: string[] } {
  const created: string[] = [];
  const core = {
    createNamespacedPod: ({ body }: { body: V1Pod }) => {
      created.push(body.metadata?.name ?? '');
      return Promise.resolve(body);
    },
  } as unknown as CoreV1Api;
  const pods = new PodWriter({
    core,
    rbac: {} as RbacAuthorizationV1Api,
    pods: {} as Informer<V1Pod>,
    clock: { now: () => new Date(0) },
    countWrite: () => undefined,
    levelOf: () => level,
  });
  return { pods, created };
}

const hostPathPod: V1Pod = {
  metadata: { name: 'p' },
  spec: { volumes: [{ name: 'host', hostPath: { path: '/etc' } }], containers: [{ name: 'step', image: 'busybox' }] },
};

describe("every Pod the operator creates, checked against its namespace's pod policy", () => {
  it('refuses a Pod above the level without asking the API, as Pod Security admission would answer', async () => {
    const { pods, created } = writer('baseline');
    const error = await pods.create('team', hostPathPod).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(created).toEqual([]);
    expect(createFailure(error)).toBe('refused');
    expect(apiErrorMessage(error)).toBe(
      'pods "p" is forbidden by Kubedag\'s pod policy "baseline" of namespace "team": spec.volumes[host].hostPath: host paths are not allowed under pod policy "baseline"',
    );
  });

  it('creates it where the level allows it', async () => {
    const { pods, created } = writer('privileged');
    await pods.create('team', hostPathPod);
    expect(created).toEqual(['p']);
  });
});
