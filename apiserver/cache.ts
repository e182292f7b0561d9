/**
 * The API server's view of the cluster: informers for everything a GET reads, so that no GET
 * costs a Kubernetes round trip, plus the indexes the contract's paths need (a run by DAG name
 * and run id, the runs of a DAG, the descendants of a root run). Writes go to the Kubernetes
 * API; `settled` then waits until the cache has seen them, so a client that reads right after
 * writing sees its write.
 */
import type {
  CoordinationV1Api,
  CoreV1Api,
  KubeConfig,
  KubernetesObject,
  V1Lease,
  V1Node,
  V1Pod,
} from '@kubernetes/client-node';
import type { KubedagClients, ResourceClient } from '../core/kube/client.ts';
import { Informer, informerLog } from '../core/kube/informer.ts';
import type { Logger } from '../core/log.ts';
import { LABELS } from '../core/resources/constants.ts';
import { withRecordedEnd } from '../core/resources/ended.ts';
import type { DagQueueResource, DagResource, DagRunResource } from '../core/resources/types.ts';
import { RunIndex } from './run-index.ts';

export interface CacheSources {
  readonly kc: KubeConfig;
  readonly namespace: string;
  readonly clients: KubedagClients;
  readonly core: CoreV1Api;
  readonly coordination: CoordinationV1Api;
  /** Where the operator's leader Lease lives. */
  readonly leaseNamespace: string;
  readonly leaseName: string;
  readonly logger: Logger;
}

/** Resource versions are etcd revisions in every Kubernetes there is; compare them as numbers. */
function atLeast(seen: string | undefined, wanted: string): boolean {
  if (seen === undefined) return false;
  const [a, b] = [Number(seen), Number(wanted)];
  return Number.isFinite(a) && Number.isFinite(b) ? a >= b : seen === wanted;
}

export class Cache {
  readonly namespace: string;
  readonly dags: Informer<DagResource>;
  readonly runs: Informer<DagRunResource>;
  readonly queues: Informer<DagQueueResource>;
  readonly pods: Informer<V1Pod>;
  readonly nodes: Informer<V1Node>;
  readonly nodeLeases: Informer<V1Lease>;
  readonly operatorLease: Informer<V1Lease>;
  readonly runIndex: RunIndex;
  private readonly waiters = new Set<() => void>();

  constructor(sources: CacheSources) {
    const { kc, namespace, clients, core, coordination, logger } = sources;
    // A failed watch or list is retried by the informer, which logs a streak of failures once.
    const log = informerLog(logger);
    this.namespace = namespace;
    const kubedag = <T extends KubernetesObject>(
      client: ResourceClient<T>,
      transform?: (object: T) => T,
    ): Informer<T> =>
      new Informer<T>({
        kc,
        path: client.path(namespace),
        list: () => client.list(namespace),
        log,
        ...(transform === undefined ? {} : { transform }),
      });
    this.dags = kubedag(clients.dags);
    // A run whose end the operator could record only in an annotation is shown ended.
    this.runs = kubedag(clients.runs, withRecordedEnd);
    this.queues = kubedag(clients.queues);
    this.pods = new Informer<V1Pod>({
      kc,
      path: `/api/v1/namespaces/${namespace}/pods`,
      list: () => core.listNamespacedPod({ namespace, labelSelector: LABELS.run }),
      labelSelector: LABELS.run,
      log,
    });
    this.nodes = new Informer<V1Node>({ kc, path: '/api/v1/nodes', list: () => core.listNode(), log });
    this.nodeLeases = new Informer<V1Lease>({
      kc,
      path: '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases',
      list: () => coordination.listNamespacedLease({ namespace: 'kube-node-lease' }),
      log,
    });
    const leaseField = `metadata.name=${sources.leaseName}`;
    this.operatorLease = new Informer<V1Lease>({
      kc,
      path: `/apis/coordination.k8s.io/v1/namespaces/${sources.leaseNamespace}/leases`,
      list: () => coordination.listNamespacedLease({ namespace: sources.leaseNamespace, fieldSelector: leaseField }),
      fieldSelector: leaseField,
      log,
    });
    this.runIndex = new RunIndex((name) => this.runs.get(namespace, name));
    this.runs.on((event, run) => {
      this.runIndex.update(run, event === 'delete');
    });
    for (const informer of this.all()) {
      informer.on(() => {
        this.wake();
      });
    }
  }

  private all(): Pick<Informer<KubernetesObject>, 'on' | 'start' | 'stop' | 'hasSynced'>[] {
    return [this.dags, this.runs, this.queues, this.pods, this.nodes, this.nodeLeases, this.operatorLease];
  }

  async start(): Promise<void> {
    await Promise.all(this.all().map((informer) => informer.start()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.all().map((informer) => informer.stop()));
  }

  synced(): boolean {
    return this.all().every((informer) => informer.hasSynced());
  }

  /**
   * Resolves once the cache holds `name` at `resourceVersion` or later (or, with `gone`, no
   * longer holds it). Gives up quietly after a while: the write happened either way.
   */
  async settled<T extends KubernetesObject>(
    informer: Informer<T>,
    name: string,
    resourceVersion: string | undefined,
    gone = false,
    timeoutMs = 5000,
  ): Promise<void> {
    const done = (): boolean => {
      const seen = informer.get(this.namespace, name);
      return gone
        ? seen === undefined
        : resourceVersion === undefined || atLeast(seen?.metadata?.resourceVersion, resourceVersion);
    };
    await this.until(done, timeoutMs);
  }

  /**
   * Resolves true once `done()` holds, checked after every change the informers see, or false
   * when `timeoutMs` passes first or `signal` aborts (the caller went away).
   */
  async until(done: () => boolean, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (done()) return true;
    if (signal?.aborted === true) return false;
    return new Promise<boolean>((resolve) => {
      const check = (): void => {
        if (done()) finish(true);
      };
      const abort = (): void => {
        finish(false);
      };
      const timer = setTimeout(abort, timeoutMs);
      const finish = (result: boolean): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
        this.waiters.delete(check);
        resolve(result);
      };
      signal?.addEventListener('abort', abort);
      this.waiters.add(check);
    });
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
