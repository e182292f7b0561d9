/**
 * Which container of a Pod an exec goes to, as `kubectl exec` picks it. One rule for the
 * operator (does a docker step's container run at launch?) and the step runner (where to exec).
 */
import type { V1Pod } from '@kubernetes/client-node';

/** kubectl's annotation for the container `kubectl exec` picks when none is named. */
const DEFAULT_CONTAINER = 'kubectl.kubernetes.io/default-container';

/** The container to exec into: the named one, else the default-container annotation, else the first; it must be running. Pure. */
export function chooseContainer(pod: V1Pod, named: string | undefined): { container: string } | { error: string } {
  const name = pod.metadata?.name ?? '';
  const containers = (pod.spec?.containers ?? []).map((c) => c.name);
  const container = named ?? pod.metadata?.annotations?.[DEFAULT_CONTAINER] ?? containers[0] ?? '';
  if (!containers.includes(container))
    return { error: `Pod ${name} has no container ${JSON.stringify(container)} (it has: ${containers.join(', ')})` };
  return isRunning(pod, container) ? { container } : { error: `container ${name}/${container} is not running` };
}

function isRunning(pod: V1Pod, container: string): boolean {
  const state = pod.status?.containerStatuses?.find((s) => s.name === container)?.state;
  return pod.status?.phase === 'Running' && state?.running !== undefined;
}
