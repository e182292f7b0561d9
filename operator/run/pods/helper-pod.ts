/**
 * What Pods that do one job after a run (a telemetry export, a mail) have in common: why one
 * failed, in one line for the run's status, and whether one whose result is recorded still
 * needs deleting. Pure.
 */
import type { V1Pod } from '@kubernetes/client-node';

/** The container's termination message, else its reason, else the Pod's. */
export function podFailure(pod: V1Pod, role: string): string {
  const terminated = pod.status?.containerStatuses?.[0]?.state?.terminated;
  const why =
    [terminated?.message?.trim(), terminated?.reason, pod.status?.reason].find(
      (text) => text !== undefined && text !== '',
    ) ?? 'unknown reason';
  return `the ${role} Pod ${pod.metadata?.name ?? ''} failed (exit code ${String(terminated?.exitCode ?? '?')}): ${why}`;
}

/** Once its result is recorded, the Pod has done its part: delete it, unless it is gone or going. */
export function removal(
  pod: V1Pod | undefined,
): { readonly kind: 'none' } | { readonly kind: 'delete'; readonly pod: string } {
  return pod === undefined || pod.metadata?.deletionTimestamp !== undefined
    ? { kind: 'none' }
    : { kind: 'delete', pod: pod.metadata?.name ?? '' };
}
