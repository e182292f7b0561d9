/**
 * The operator's caches: informers for DAGRuns, DAGs, DAGQueues and step Pods (only Pods with
 * the run label), scoped to the one watched namespace if there is exactly one, else cluster
 * wide.
 */
import type { CoreV1Api, KubeConfig, KubernetesObject, V1Pod } from '@kubernetes/client-node';
import type { KubedagClients, ResourceClient } from '../core/kube/client.ts';
import { Informer } from '../core/kube/informer.ts';
import type { Logger } from '../core/log.ts';
import { LABELS } from '../core/resources/constants.ts';
import type { DagQueueResource, DagResource, DagRunResource } from '../core/resources/types.ts';

export interface OperatorInformers {
  readonly runs: Informer<DagRunResource>;
  readonly dags: Informer<DagResource>;
  readonly queues: Informer<DagQueueResource>;
  readonly pods: Informer<V1Pod>;
}

export function operatorInformers(kc: KubeConfig, core: CoreV1Api, kube: KubedagClients, namespaces: readonly string[], log: Logger): OperatorInformers {
  const namespace = namespaces.length === 1 ? namespaces[0] : undefined;
  const informerLog = (message: string): void => {
    log.warn(message);
  };
  const custom = <T extends KubernetesObject>(client: ResourceClient<T>): Informer<T> => new Informer<T>({ kc, path: client.path(namespace), list: () => client.list(namespace), log: informerLog });
  return {
    runs: custom(kube.runs),
    dags: custom(kube.dags),
    queues: custom(kube.queues),
    pods: new Informer<V1Pod>({
      kc,
      path: namespace === undefined ? '/api/v1/pods' : `/api/v1/namespaces/${namespace}/pods`,
      list: () => (namespace === undefined ? core.listPodForAllNamespaces({ labelSelector: LABELS.run }) : core.listNamespacedPod({ namespace, labelSelector: LABELS.run })),
      labelSelector: LABELS.run,
      log: informerLog,
    }),
  };
}
