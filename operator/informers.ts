/**
 * The operator's four informers (DAGRuns, DAGs, DAGQueues, step Pods), scoped to the one
 * watched namespace if there is one, each with a transform that keeps only what the operator
 * reads: the caches live as long as the process, and every object in them is held twice while
 * a burst is being listed and watched. docs/decisions/2026-11-24-operator-memory.md has the
 * figures.
 */
import type {
  CoreV1Api,
  KubeConfig,
  KubernetesObject,
  V1Namespace,
  V1Pod,
  V1PodSpec,
  V1PodStatus,
  V1ServiceAccount,
} from '@kubernetes/client-node';
import type { KubedagClients, ResourceClient } from '../core/kube/client.ts';
import { Informer, informerLog } from '../core/kube/informer.ts';
import type { Logger } from '../core/log.ts';
import { ALLOW_RUNS_LABEL } from '../core/policy/namespace.ts';
import { LABELS } from '../core/resources/constants.ts';
import { withRecordedEnd } from '../core/resources/ended.ts';
import type { DagQueueResource, DagResource, DagRunResource } from '../core/resources/types.ts';

export interface OperatorInformers {
  readonly runs: Informer<DagRunResource>;
  readonly dags: Informer<DagResource>;
  readonly pods: Informer<V1Pod>;
  readonly queues: Informer<DagQueueResource>;
  /** Namespaces, names and labels only: their pod policy label (docs/pod-policy.md). */
  readonly namespaces: Informer<V1Namespace>;
  /** The service accounts labelled kubedag.io/allow-runs=true, names only: those a DAG may name. */
  readonly serviceAccounts: Informer<V1ServiceAccount>;
}

/** Name, namespace and labels: all a policy decision reads of a namespace or service account. */
function labelsOnly<T extends KubernetesObject>(object: T): T {
  const { name, namespace, labels, resourceVersion, uid } = object.metadata ?? {};
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    metadata: { name, namespace, labels, resourceVersion, uid },
  } as T;
}

/**
 * The object without `metadata.managedFields`: server-side apply's bookkeeping, which nothing
 * here reads. Omitting it from a later update keeps the server's copy (only an explicit value
 * replaces it), so runs written back from the cache lose nothing.
 */
export function withoutManagedFields<T extends KubernetesObject>(object: T): T {
  if (object.metadata?.managedFields === undefined) return object;
  const { managedFields: _managedFields, ...metadata } = object.metadata;
  return { ...object, metadata };
}

/** A cached step Pod: a V1Pod without what `podView` leaves out. */
export type PodView = Omit<V1Pod, 'spec' | 'status'> & {
  spec?: Pick<V1PodSpec, 'activeDeadlineSeconds' | 'nodeName'>;
  status?: Pick<
    V1PodStatus,
    'phase' | 'reason' | 'message' | 'startTime' | 'initContainerStatuses' | 'containerStatuses' | 'conditions'
  >;
};

/**
 * What the operator reads of a step Pod: its metadata (labels, annotations, owners, deletion),
 * phase, start time, container states (exit code and report message) and activeDeadlineSeconds
 * (how a step is stopped), the PodScheduled condition while it is False (why a step waits) and
 * the DisruptionTarget condition while it is True (why Kubernetes is taking the Pod away). The
 * containers' spec (command, environment, volumes) and the other status conditions are most of
 * a Pod and are never read; nothing writes a cached Pod back.
 */
export function podView(pod: V1Pod): PodView {
  const { metadata } = withoutManagedFields(pod);
  const { spec, status } = pod;
  return {
    ...pick(pod, 'apiVersion', 'kind'),
    ...(metadata === undefined ? {} : { metadata }),
    ...(spec === undefined ? {} : { spec: pick(spec, 'activeDeadlineSeconds', 'nodeName') }),
    ...(status === undefined
      ? {}
      : {
          status: {
            ...pick(status, 'phase', 'reason', 'message', 'startTime', 'initContainerStatuses', 'containerStatuses'),
            ...tellingConditions(status),
          },
        }),
  };
}

function tellingConditions(status: V1PodStatus): Pick<V1PodStatus, 'conditions'> {
  const conditions = (status.conditions ?? []).filter(
    (c) =>
      (c.type === 'PodScheduled' && c.status === 'False') || (c.type === 'DisruptionTarget' && c.status === 'True'),
  );
  return conditions.length === 0 ? {} : { conditions };
}

/** The named fields that are present, and no others. */
function pick<T extends object, K extends keyof T>(object: T, ...keys: readonly K[]): Pick<T, K> {
  const kept: Partial<Pick<T, K>> = {};
  for (const key of keys) if (object[key] !== undefined) kept[key] = object[key];
  return kept as Pick<T, K>;
}

const ALLOWED_ACCOUNTS = `${ALLOW_RUNS_LABEL}=true`;

export function operatorInformers(
  kc: KubeConfig,
  core: CoreV1Api,
  kube: KubedagClients,
  namespaces: readonly string[],
  log: Logger,
): OperatorInformers {
  const namespace = namespaces.length === 1 ? namespaces[0] : undefined;
  const watchLog = informerLog(log);
  const custom = <T extends KubernetesObject>(
    client: ResourceClient<T>,
    transform: (object: T) => T = withoutManagedFields,
  ): Informer<T> =>
    new Informer<T>({ kc, path: client.path(namespace), list: () => client.list(namespace), transform, log: watchLog });
  return {
    // A run whose end only its annotation could record is seen ended, by every controller.
    runs: custom(kube.runs, (run) => withRecordedEnd(withoutManagedFields(run))),
    dags: custom(kube.dags),
    queues: custom(kube.queues),
    pods: new Informer<V1Pod>({
      kc,
      path: namespace === undefined ? '/api/v1/pods' : `/api/v1/namespaces/${namespace}/pods`,
      list: () =>
        namespace === undefined
          ? core.listPodForAllNamespaces({ labelSelector: LABELS.run })
          : core.listNamespacedPod({ namespace, labelSelector: LABELS.run }),
      labelSelector: LABELS.run,
      // The controllers' types still say V1Pod: a read of a field left out is undefined, never
      // a plausible empty value (no `containers: []`), so such a mistake shows at once.
      transform: (pod) => podView(pod) as V1Pod,
      log: watchLog,
    }),
    // All namespaces even when one is watched: a namespace is cluster-scoped, and few.
    namespaces: new Informer<V1Namespace>({
      kc,
      path: '/api/v1/namespaces',
      list: () => core.listNamespace(),
      transform: labelsOnly,
      log: watchLog,
    }),
    serviceAccounts: new Informer<V1ServiceAccount>({
      kc,
      path: namespace === undefined ? '/api/v1/serviceaccounts' : `/api/v1/namespaces/${namespace}/serviceaccounts`,
      list: () =>
        namespace === undefined
          ? core.listServiceAccountForAllNamespaces({ labelSelector: ALLOWED_ACCOUNTS })
          : core.listNamespacedServiceAccount({ namespace, labelSelector: ALLOWED_ACCOUNTS }),
      labelSelector: ALLOWED_ACCOUNTS,
      transform: labelsOnly,
      log: watchLog,
    }),
  };
}
