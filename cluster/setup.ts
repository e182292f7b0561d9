/**
 * What turns a bare control plane into Kubedag's local cluster: CRDs installed and Established,
 * nodes Ready, the default service account present, the default StorageClass declared.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ApiextensionsV1Api,
  CoreV1Api,
  KubeConfig,
  loadYaml,
  StorageV1Api,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { waitFor } from './processes.ts';
import { reuseConnections } from '../core/kube/connections.ts';
import { isAlreadyExists } from '../core/kube/errors.ts';

export const CRD_DIR = join(import.meta.dirname, '../crds');

export function kubeConfig(path: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return reuseConnections(kc);
}

/** Creates or updates every CRD in crds/ and waits until each is Established. */
export async function installCrds(kc: KubeConfig, dir = CRD_DIR): Promise<string[]> {
  const api = kc.makeApiClient(ApiextensionsV1Api);
  const names: string[] = [];
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.yaml')).sort()) {
    // loadYaml maps JSON names to the client's model fields (x-kubernetes-* -> x_kubernetes_*);
    // a plain parse would let the client's serialiser drop every x-kubernetes- extension.
    const crd = loadYaml<V1CustomResourceDefinition>(await readFile(join(dir, file), 'utf8'));
    const name = crd.metadata?.name ?? '';
    names.push(name);
    try {
      await api.createCustomResourceDefinition({ body: crd });
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
      const existing = await api.readCustomResourceDefinition({ name });
      await api.replaceCustomResourceDefinition({
        name,
        body: { ...crd, metadata: { ...crd.metadata, resourceVersion: existing.metadata?.resourceVersion } },
      });
    }
  }
  await waitFor(
    'CRDs to be Established',
    async () => {
      const crds = await Promise.all(names.map((name) => api.readCustomResourceDefinition({ name })));
      return crds.every(
        (crd) => crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true,
      );
    },
    30_000,
  );
  return names;
}

/** Waits until the named nodes are Ready and schedulable, and pods can be admitted. */
export async function waitForNodes(kc: KubeConfig, names: readonly string[], timeoutMs = 60_000): Promise<void> {
  const api = kc.makeApiClient(CoreV1Api);
  await waitFor(
    `nodes ${names.join(', ')} to be Ready`,
    async () => {
      const nodes = (await api.listNode()).items;
      return names.every((name) => {
        const node = nodes.find((n) => n.metadata?.name === name);
        const ready = node?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
        const tainted = (node?.spec?.taints ?? []).some((t) => t.key.startsWith('node.kubernetes.io/'));
        return ready && !tainted;
      });
    },
    timeoutMs,
    200,
  );
  await waitFor(
    'the default service account',
    async () =>
      (await api.readNamespacedServiceAccount({ name: 'default', namespace: 'default' })).metadata !== undefined,
    timeoutMs,
    200,
  );
}

/** Waits until the provisioner has declared its StorageClass: claims made before would get none. */
export async function waitForStorageClass(kc: KubeConfig, name: string, timeoutMs = 30_000): Promise<void> {
  const api = kc.makeApiClient(StorageV1Api);
  await waitFor(
    `StorageClass ${name}`,
    async () => (await api.readStorageClass({ name })).metadata !== undefined,
    timeoutMs,
    200,
  );
}
