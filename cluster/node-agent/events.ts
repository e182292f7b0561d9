/**
 * Events on a Pod, as the kubelet records them (source component `kubelet`, the node as
 * host), so that `kubectl describe pod` shows what the node did or could not do.
 */
import type { CoreV1Api, CoreV1Event, V1Pod } from '@kubernetes/client-node';
import type { Clock } from '../../core/kube/time.ts';

export interface PodEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

export function eventFor(pod: V1Pod, event: PodEvent, node: string, now: Date): CoreV1Event {
  const namespace = pod.metadata?.namespace ?? 'default';
  return {
    metadata: { generateName: `${pod.metadata?.name ?? 'pod'}.`, namespace },
    involvedObject: { apiVersion: 'v1', kind: 'Pod', name: pod.metadata?.name, namespace, uid: pod.metadata?.uid, ...(pod.metadata?.resourceVersion === undefined ? {} : { resourceVersion: pod.metadata.resourceVersion }) },
    type: event.type,
    reason: event.reason,
    message: event.message,
    source: { component: 'kubelet', host: node },
    reportingComponent: 'kubelet',
    reportingInstance: node,
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
  };
}

export async function recordEvent(api: CoreV1Api, pod: V1Pod, event: PodEvent, node: string, clock: Clock): Promise<void> {
  await api.createNamespacedEvent({ namespace: pod.metadata?.namespace ?? 'default', body: eventFor(pod, event, node, clock.now()) });
}
