/**
 * What the cluster shows of a run's attempts: its Pods and child runs, each seen as an
 * ObservedPod for the engine, and whether an attempt is over. Pure.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { ANNOTATIONS, GROUP, LABELS } from '../../../core/resources/constants.ts';
import type { DagRunStatus } from '../../../core/resources/schemas.ts';
import { RunStatus, StepStatus } from '../../../core/resources/status.ts';
import type { DagRunResource } from '../../../core/resources/types.ts';
import { childResult } from './children.ts';
import type { ObservedPod } from './engine.ts';
import { phaseEnded } from './work.ts';

const FINISHED = new Set<number>([
  RunStatus.Failed,
  RunStatus.Canceled,
  RunStatus.Succeeded,
  RunStatus.PartiallySucceeded,
]);

export function podIdentity(pod: V1Pod): ObservedPod {
  const unschedulable = unschedulableReason(pod);
  return {
    ...(unschedulable === undefined ? {} : { unschedulable }),
    name: pod.metadata?.name ?? '',
    step: pod.metadata?.annotations?.[ANNOTATIONS.step] ?? '',
    attempt: Number(pod.metadata?.labels?.[LABELS.attempt] ?? '0'),
    phase: podPhase(pod),
    deleting: pod.metadata?.deletionTimestamp !== undefined,
  };
}

/**
 * A Pod's phase as its containers tell it. A step Pod never restarts a container, so once every
 * container has terminated the Pod's end is settled: the kubelet's phase follows the same rule
 * (Succeeded when all exited 0) but only about a second later, after it has stopped the sandbox.
 * Acting on the containers spares every step that second (docs/real-node.md); the node agent
 * reports both at once, which hid it.
 */
export function podPhase(pod: Pick<V1Pod, 'status'>): ObservedPod['phase'] {
  const phase = (pod.status?.phase ?? 'Pending') as ObservedPod['phase'];
  if (phase === 'Succeeded' || phase === 'Failed') return phase;
  const containers = pod.status?.containerStatuses ?? [];
  if (containers.length === 0 || !containers.every((c) => c.state?.terminated !== undefined)) return phase;
  return containers.every((c) => c.state?.terminated?.exitCode === 0) ? 'Succeeded' : 'Failed';
}

/** Whether a Pod's containers have all ended (podPhase). */
export function podOver(pod: Pick<V1Pod, 'status'>): boolean {
  return phaseEnded(podPhase(pod));
}

/**
 * What says a step Pod may never report its end (lost.ts): a deletion under way, when its grace
 * period ends and why; a failure without an exit.
 */
export function endSigns(pod: V1Pod): Pick<ObservedPod, 'deleteBy' | 'disruption' | 'failedWithoutExit'> {
  const phase = pod.status?.phase;
  // A watch gives RFC 3339 text, the typed client a Date: both read the same.
  const deletion = pod.metadata?.deletionTimestamp;
  const disruption = pod.status?.conditions?.find((c) => c.type === 'DisruptionTarget' && c.status === 'True')?.reason;
  const exited = pod.status?.containerStatuses?.some((c) => c.state?.terminated !== undefined) === true;
  return {
    ...(deletion === undefined ? {} : { deleteBy: new Date(deletion).toISOString() }),
    ...(disruption === undefined ? {} : { disruption }),
    ...(phase === 'Failed' && !exited ? { failedWithoutExit: pod.status?.reason ?? 'no reason given' } : {}),
  };
}

/** The scheduler's message while no node can take the Pod. */
function unschedulableReason(pod: V1Pod): string | undefined {
  const condition = pod.status?.conditions?.find(
    (c) => c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable',
  );
  return condition === undefined ? undefined : (condition.message ?? 'no node fits the Pod');
}

/**
 * A terminated Pod whose attempt the status has moved past. Every attempt of a finished run
 * is over, listed or not: a run ended with a smaller status (status-refused.ts) may not list
 * its steps, and its stopped Pods must not stay for good.
 */
export function attemptOver(pod: V1Pod, status: DagRunStatus): boolean {
  const { step, attempt, phase, deleting } = podIdentity(pod);
  if (deleting || !phaseEnded(phase)) return false;
  if (status.finishedAt !== undefined) return true;
  const nodes = [
    ...(status.nodes ?? []),
    ...[
      status.prepare,
      status.onInit,
      status.onWait,
      status.onSuccess,
      status.onFailure,
      status.onCancel,
      status.onExit,
    ].filter((n) => n !== undefined),
  ];
  const node = nodes.find((n) => n.name === step);
  return (
    node !== undefined &&
    ((node.attempt ?? 0) > attempt || (node.status !== StepStatus.Running && node.status !== StepStatus.NotStarted))
  );
}

/** Marks the child runs of a `parallel` step with their item's index. */
export const ITEM_LABEL = `${GROUP}/item`;

/** A child run seen as the attempt of its calling step; finished, it reports its result JSON. */
export function observeChild(child: DagRunResource): ObservedPod {
  const finished = isFinished(child);
  const label = child.status?.statusLabel ?? 'running';
  const succeeded = label === 'succeeded' || label === 'partially_succeeded';
  const identity = podIdentity({ metadata: child.metadata });
  const item = child.metadata?.labels?.[ITEM_LABEL];
  const base: ObservedPod = {
    ...identity,
    ...(item === undefined ? {} : { item: Number(item) }),
    phase: finished ? (succeeded ? 'Succeeded' : 'Failed') : 'Running',
  };
  if (!finished) return base;
  return {
    ...base,
    report: {
      exitCode: succeeded ? 0 : 1,
      preconditionUnmet: false,
      stdout: JSON.stringify(childResult(child)),
      childStatus: label,
      childNodes: (child.status?.nodes ?? []).map((n) => ({
        name: n.name,
        ...(n.outputs === undefined ? {} : { outputs: n.outputs }),
        ...(n.stepOutputs === undefined ? {} : { stepOutputs: n.stepOutputs }),
      })),
    },
  };
}

export function isFinished(run: DagRunResource): boolean {
  return FINISHED.has(run.status?.status ?? -1) && run.status?.finishedAt !== undefined;
}

/** The DAGRun that controls a step Pod or a child run, by name (same namespace). */
export function ownerRunName(object: {
  readonly metadata?: {
    readonly ownerReferences?: readonly {
      readonly kind: string;
      readonly name: string;
      readonly controller?: boolean;
    }[];
  };
}): string | undefined {
  return object.metadata?.ownerReferences?.find((o) => o.kind === 'DAGRun' && o.controller === true)?.name;
}

/** A filter for the objects (step Pods, child runs) a run owns. */
export function ownedBy(
  run: DagRunResource,
): (object: { readonly metadata?: { readonly ownerReferences?: readonly { readonly uid: string }[] } }) => boolean {
  const uid = run.metadata?.uid;
  return (object) => object.metadata?.ownerReferences?.some((o) => o.uid === uid) === true;
}
