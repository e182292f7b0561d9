/**
 * Events as the local cluster's stand-ins for kubelet and external provisioner record them
 * (a source component, the node as host), so that `kubectl describe` shows what they did or
 * could not do.
 */
import type { CoreV1Api, CoreV1Event, KubernetesObject } from '@kubernetes/client-node';
import type { Clock } from '../core/kube/time.ts';

export interface ObjectEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

export interface EventSource {
  /** `kubelet` for the node agent, the provisioner's name for the provisioner. */
  readonly component: string;
  /** The node, for the node agent. */
  readonly host?: string;
}

export function eventFor(object: KubernetesObject, event: ObjectEvent, source: EventSource, now: Date): CoreV1Event {
  const { name, namespace = 'default', uid, resourceVersion } = object.metadata ?? {};
  return {
    metadata: { generateName: `${name ?? 'object'}.`, namespace },
    involvedObject: {
      apiVersion: object.apiVersion,
      kind: object.kind,
      name,
      namespace,
      uid,
      ...(resourceVersion === undefined ? {} : { resourceVersion }),
    },
    type: event.type,
    reason: event.reason,
    message: event.message,
    source: { component: source.component, ...(source.host === undefined ? {} : { host: source.host }) },
    reportingComponent: source.component,
    reportingInstance: source.host ?? source.component,
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
  };
}

export async function recordEvent(
  api: CoreV1Api,
  object: KubernetesObject,
  event: ObjectEvent,
  source: EventSource,
  clock: Clock,
): Promise<void> {
  await api.createNamespacedEvent({
    namespace: object.metadata?.namespace ?? 'default',
    body: eventFor(object, event, source, clock.now()),
  });
}
