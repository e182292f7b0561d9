/**
 * Every step Pod some namespaces saw, as last seen, kept by a watch: the operator deletes step
 * Pods once their logs are archived, so a test that asserts on a Pod's spec reads it here.
 */
import { Watch, type KubeConfig, type V1Pod } from '@kubernetes/client-node';

export class PodRecorder {
  private readonly seen = new Map<string, V1Pod>();
  private readonly watches: { abort: () => void }[] = [];
  private readonly kc: KubeConfig;

  constructor(kc: KubeConfig) {
    this.kc = kc;
  }

  async record(namespace: string): Promise<void> {
    const request = await new Watch(this.kc).watch(
      `/api/v1/namespaces/${namespace}/pods`,
      {},
      (type: string, pod: V1Pod) => {
        if (type !== 'DELETED') this.seen.set(`${namespace}/${pod.metadata?.name ?? ''}`, pod);
      },
      () => undefined,
    );
    this.watches.push(request);
  }

  /** The Pods of a run. */
  podsOf(namespace: string, run: string): V1Pod[] {
    return [...this.seen.values()].filter(
      (p) => p.metadata?.namespace === namespace && p.metadata.labels?.['kubedag.io/run'] === run,
    );
  }

  /** The Pod of a run's step. */
  podOf(namespace: string, run: string, step: string): V1Pod | undefined {
    return this.podsOf(namespace, run).find((p) => p.metadata?.annotations?.['kubedag.io/step-name'] === step);
  }

  stop(): void {
    for (const watch of this.watches) watch.abort();
  }
}
