/**
 * Attempts whose Pod can no longer report: the engine must not wait for them forever. Pure.
 *
 * When a node stops answering, Kubernetes taints it; once a step Pod's toleration of that taint
 * runs out (300 s unless the DAG's `kubernetes.tolerations` says otherwise) the taint eviction
 * controller deletes the Pod. Only a kubelet can finish a graceful deletion, so the Pod then
 * stays Terminating, without a termination state, for as long as its node is away. A kubelet
 * that is up confirms a deletion within moments of the grace period's end (it kills what is
 * left then); a Pod still unconfirmed LOST_AFTER_MS later has gone down with its node. The
 * rule reads only the Pod as it is now and the clock, so any reconcile, by any operator
 * process, comes to the same verdict, and a run that waits for it is woken when it is due.
 *
 * The Pod object is left alone: force-deleting it would not stop a process on a node that is
 * only cut off, and Kubernetes removes it when the node comes back or is deleted.
 */
import type { ObservedPod } from './work.ts';

/** How long past its grace period a Pod being deleted may stay unconfirmed before it counts as lost. */
export const LOST_AFTER_MS = 20_000;

export type Loss =
  { readonly lost: true; readonly why: string } | { readonly lost: false; readonly lookAgainAt?: number };

/** Whether the Pod of an attempt, seen without a report, is lost; if it may still report, when to look again. */
export function podLoss(pod: ObservedPod, now: Date): Loss {
  const name = `the Pod of attempt ${String(pod.attempt)}`;
  if (pod.failedWithoutExit !== undefined)
    return { lost: true, why: `${name} failed before its container ended (${pod.failedWithoutExit})` };
  if (pod.deleteBy === undefined) return { lost: false };
  const due = Date.parse(pod.deleteBy) + LOST_AFTER_MS;
  if (now.getTime() < due) return { lost: false, lookAgainAt: due };
  const why = pod.disruption === undefined ? 'deleted' : `deleted (${pod.disruption})`;
  return { lost: true, why: `${name} was ${why} and its node never confirmed it stopped: lost with its node` };
}
