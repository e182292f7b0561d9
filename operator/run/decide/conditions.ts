/**
 * The DAGRun's status conditions, for `kubectl wait` and tools that read conditions:
 * `Running` (True while the run runs) and `Succeeded` (True once it succeeded or partially
 * succeeded, False once it failed or was canceled, Unknown before). A condition's
 * lastTransitionTime moves only when its status does, so they add no status writes. Pure.
 */
import type { DagRunStatus } from '../../../core/resources/schemas.ts';
import { RunStatus } from '../../../core/resources/status.ts';

type Condition = NonNullable<DagRunStatus['conditions']>[number];

const REASONS: Record<number, string> = {
  [RunStatus.NotStarted]: 'NotStarted',
  [RunStatus.Running]: 'Running',
  [RunStatus.Failed]: 'Failed',
  [RunStatus.Canceled]: 'Canceled',
  [RunStatus.Succeeded]: 'Succeeded',
  [RunStatus.Queued]: 'Queued',
  [RunStatus.PartiallySucceeded]: 'PartiallySucceeded',
  [RunStatus.Waiting]: 'Waiting',
  [RunStatus.Rejected]: 'Rejected',
};

function condition(
  type: string,
  holds: 'True' | 'False' | 'Unknown',
  reason: string,
  message: string,
): Omit<Condition, 'lastTransitionTime' | 'observedGeneration'> {
  return { type, status: holds, reason, message };
}

export function withConditions(status: DagRunStatus, generation: number, now: Date): DagRunStatus {
  const value = status.status ?? RunStatus.NotStarted;
  const reason = REASONS[value] ?? 'Unknown';
  const finished = status.finishedAt !== undefined;
  const succeeded = value === RunStatus.Succeeded || value === RunStatus.PartiallySucceeded;
  const wanted = [
    condition(
      'Running',
      value === RunStatus.Running && !finished ? 'True' : 'False',
      reason,
      value === RunStatus.Running && !finished ? `${status.progress ?? ''} steps finished` : `the run is ${reason}`,
    ),
    condition(
      'Succeeded',
      !finished ? 'Unknown' : succeeded ? 'True' : 'False',
      reason,
      finished ? (status.error ?? `the run ended ${reason}`) : 'the run has not ended',
    ),
  ];
  const previous = new Map((status.conditions ?? []).map((c) => [c.type, c]));
  const conditions = wanted.map((c) => {
    const before = previous.get(c.type);
    const lastTransitionTime =
      before !== undefined && before.status === c.status ? before.lastTransitionTime : now.toISOString();
    return { ...c, lastTransitionTime, observedGeneration: generation };
  });
  return { ...status, observedGeneration: generation, conditions };
}
