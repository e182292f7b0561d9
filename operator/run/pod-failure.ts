/**
 * Why a Pod that does one job after a run (a telemetry export, a mail) failed, in one line for
 * the run's status: the container's termination message, else its reason, else the Pod's. Pure.
 */
import type { V1Pod } from '@kubernetes/client-node';

export function podFailure(pod: V1Pod, role: string): string {
  const terminated = pod.status?.containerStatuses?.[0]?.state?.terminated;
  const why = [terminated?.message?.trim(), terminated?.reason, pod.status?.reason].find((text) => text !== undefined && text !== '') ?? 'unknown reason';
  return `the ${role} Pod ${pod.metadata?.name ?? ''} failed (exit code ${String(terminated?.exitCode ?? '?')}): ${why}`;
}
