/**
 * What integration tests share: clients for the suite's cluster, a namespace per test file,
 * a Pod builder, waiting on real objects, and running the real kubectl.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { CoreV1Api, CustomObjectsApi, KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { inject } from 'vitest';
import { waitFor } from '../../cluster/processes.ts';
import { kubedagClients, type KubedagClients } from '../../core/kube/client.ts';
import { reuseConnections } from '../../core/kube/connections.ts';

export { waitFor };

export interface Clients {
  readonly kc: KubeConfig;
  readonly core: CoreV1Api;
  readonly custom: CustomObjectsApi;
  /** Typed clients of Kubedag's own resources. */
  readonly kube: KubedagClients;
}

export function clients(): Clients {
  const kc = new KubeConfig();
  reuseConnections(kc).loadFromFile(inject('cluster').kubeconfig);
  const custom = kc.makeApiClient(CustomObjectsApi);
  return { kc, core: kc.makeApiClient(CoreV1Api), custom, kube: kubedagClients(custom) };
}

/** A fresh namespace with its default service account ready; delete it in afterAll. */
export async function createNamespace(core: CoreV1Api, prefix: string): Promise<string> {
  const name = `${prefix}-${randomBytes(3).toString('hex')}`;
  await core.createNamespace({ body: { metadata: { name } } });
  await waitFor(
    `service account in ${name}`,
    async () => (await core.readNamespacedServiceAccount({ name: 'default', namespace: name })).metadata !== undefined,
    30_000,
  );
  return name;
}

export async function deleteNamespace(core: CoreV1Api, name: string): Promise<void> {
  await core.deleteNamespace({ name }).catch(() => undefined);
}

export async function waitForPod(
  core: CoreV1Api,
  ref: { namespace: string; name: string },
  what: string,
  check: (pod: V1Pod) => boolean,
  timeoutMs = 60_000,
): Promise<V1Pod> {
  const { namespace, name } = ref;
  let last: V1Pod | undefined;
  await waitFor(
    `pod ${namespace}/${name} ${what}`,
    async () => {
      last = await core.readNamespacedPod({ name, namespace });
      return check(last);
    },
    timeoutMs,
    200,
  );
  return last as V1Pod;
}

export const finished = (p: V1Pod): boolean => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';
export const running = (p: V1Pod): boolean => p.status?.phase === 'Running';

const run = promisify(execFile);

/** The real kubectl against the suite's cluster. */
export async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run(inject('binaries').kubectl, ['--kubeconfig', inject('cluster').kubeconfig, ...args]);
  return stdout;
}
