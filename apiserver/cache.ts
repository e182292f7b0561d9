/**
 * The API server's view of the cluster: informers for everything a GET reads, so that no GET
 * costs a Kubernetes round trip, plus the indexes the contract's paths need (a run by DAG name
 * and run id, the runs of a DAG, the descendants of a root run). Writes go to the Kubernetes
 * API; `settled` then waits until the cache has seen them, so a client that reads right after
 * writing sees its write.
 */
import type { CoordinationV1Api, CoreV1Api, KubeConfig, KubernetesObject, V1Lease, V1Node, V1Pod } from '@kubernetes/client-node';
import type { KubedagClients, ResourceClient } from '../core/kube/client.ts';
import { Informer, informerLog } from '../core/kube/informer.ts';
import type { Logger } from '../core/log.ts';
import { LABELS } from '../core/resources/constants.ts';
import { withRecordedEnd } from '../core/resources/ended.ts';
import type { DagQueueResource, DagResource, DagRunResource } from '../core/resources/types.ts';
import { runIdentity } from './views/identity.ts';

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

/** Runs by what the contract addresses them with. Kept current from informer events. */
export class RunIndex {
  private readonly byKey = new Map<string, string>();
  private readonly byDag = new Map<string, Set<string>>();
  private readonly byRoot = new Map<string, Set<string>>();
  /** The keys each resource was filed under, to unfile it when it changes or goes. */
  private readonly filed = new Map<string, { key?: string; dag?: string; root?: string }>();

  private readonly lookup: (resourceName: string) => DagRunResource | undefined;

  constructor(lookup: (resourceName: string) => DagRunResource | undefined) {
    this.lookup = lookup;
  }

  /** Grows with every change to any run: answers built from all runs can be kept until it moves. */
  generation = 0;

  update(run: DagRunResource, deleted: boolean): void {
    this.generation += 1;
    const resource = run.metadata?.name ?? '';
    this.unfile(resource);
    if (deleted) return;
    const id = runIdentity(run);
    const rootKey = `${id.rootName}/${id.rootId}`;
    if (id.parentId === '') {
      const key = `${id.name}/${id.dagRunId}`;
      this.byKey.set(key, resource);
      add(this.byDag, id.name, resource);
      this.filed.set(resource, { key, dag: id.name });
    } else {
      add(this.byRoot, rootKey, resource);
      this.filed.set(resource, { root: rootKey });
    }
  }

  /** A root run by DAG name and run id. */
  run(name: string, dagRunId: string): DagRunResource | undefined {
    const resource = this.byKey.get(`${name}/${dagRunId}`);
    return resource === undefined ? undefined : this.lookup(resource);
  }

  /** The root runs listed under a DAG name. */
  runsOf(name: string): DagRunResource[] {
    return this.resolve(this.byDag.get(name));
  }

  dagNames(): string[] {
    return [...this.byDag.keys()];
  }

  /** Every sub run (at any depth) of a root run. */
  descendants(rootName: string, rootId: string): DagRunResource[] {
    return this.resolve(this.byRoot.get(`${rootName}/${rootId}`));
  }

  private resolve(names: Set<string> | undefined): DagRunResource[] {
    return [...(names ?? [])].flatMap((n) => this.lookup(n) ?? []);
  }

  private unfile(resource: string): void {
    const was = this.filed.get(resource);
    if (was === undefined) return;
    if (was.key !== undefined && this.byKey.get(was.key) === resource) this.byKey.delete(was.key);
    if (was.dag !== undefined) remove(this.byDag, was.dag, resource);
    if (was.root !== undefined) remove(this.byRoot, was.root, resource);
    this.filed.delete(resource);
  }
}

function add(map: Map<string, Set<string>>, key: string, value: string): void {
  const set = map.get(key) ?? new Set<string>();
  set.add(value);
  map.set(key, set);
}

function remove(map: Map<string, Set<string>>, key: string, value: string): void {
  const set = map.get(key);
  set?.delete(value);
  if (set?.size === 0) map.delete(key);
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
    const kubedag = <T extends KubernetesObject>(client: ResourceClient<T>, transform?: (object: T) => T): Informer<T> => new Informer<T>({ kc, path: client.path(namespace), list: () => client.list(namespace), log, ...(transform === undefined ? {} : { transform }) });
    this.dags = kubedag(clients.dags);
    // A run whose end the operator could record only in an annotation is shown ended.
    this.runs = kubedag(clients.runs, withRecordedEnd);
    this.queues = kubedag(clients.queues);
    this.pods = new Informer<V1Pod>({ kc, path: `/api/v1/namespaces/${namespace}/pods`, list: () => core.listNamespacedPod({ namespace, labelSelector: LABELS.run }), labelSelector: LABELS.run, log });
    this.nodes = new Informer<V1Node>({ kc, path: '/api/v1/nodes', list: () => core.listNode(), log });
    this.nodeLeases = new Informer<V1Lease>({ kc, path: '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', list: () => coordination.listNamespacedLease({ namespace: 'kube-node-lease' }), log });
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
  async settled<T extends KubernetesObject>(informer: Informer<T>, name: string, resourceVersion: string | undefined, gone = false, timeoutMs = 5000): Promise<void> {
    const done = (): boolean => {
      const seen = informer.get(this.namespace, name);
      return gone ? seen === undefined : resourceVersion === undefined || atLeast(seen?.metadata?.resourceVersion, resourceVersion);
    };
    if (done()) return;
    await new Promise<void>((resolve) => {
      const check = (): void => {
        if (!done()) return;
        finish();
      };
      const timer = setTimeout(() => {
        finish();
      }, timeoutMs);
      const finish = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
    });
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
