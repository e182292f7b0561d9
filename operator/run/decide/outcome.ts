/**
 * The final status of a run from its steps and handlers (behaviour-notes 3). Pure.
 */
import { RunStatus, StepStatus, type RunStatusValue } from '../../../core/resources/status.ts';
import type { DagRunStatus, RunNode } from '../../../core/resources/schemas.ts';

export type EndReason = NonNullable<DagRunStatus['endReason']>;

/** The status the steps alone give the run, before handlers. */
export function stepsOutcome(nodes: readonly RunNode[], endReason: EndReason | undefined): RunStatusValue {
  const ok = (n: RunNode): boolean =>
    n.status === StepStatus.Succeeded || n.status === StepStatus.Skipped || n.status === StepStatus.PartiallySucceeded;
  if (endReason === 'rejected' || endReason === 'refused') return RunStatus.Failed;
  if ((endReason === 'stopped' || endReason === 'preconditions' || endReason === 'init') && !nodes.every(ok))
    return RunStatus.Canceled;
  if (nodes.some((n) => n.status === StepStatus.Rejected)) return RunStatus.Rejected;
  const hardFailure = nodes.some((n) => n.status === StepStatus.Failed && n.continued !== true);
  const anySuccess = nodes.some((n) => n.status === StepStatus.Succeeded || n.status === StepStatus.PartiallySucceeded);
  const softFailure = nodes.some(
    (n) => (n.status === StepStatus.Failed && n.continued === true) || n.status === StepStatus.PartiallySucceeded,
  );
  if (!hardFailure && anySuccess && softFailure) return RunStatus.PartiallySucceeded;
  if (hardFailure || endReason === 'timeout' || endReason === 'deadlock' || endReason === 'stalled')
    return RunStatus.Failed;
  return RunStatus.Succeeded;
}

/** Which outcome handler runs for a steps outcome: success also covers partial success. */
export function outcomeHandler(outcome: RunStatusValue): 'success' | 'failure' | 'cancel' {
  if (outcome === RunStatus.Succeeded || outcome === RunStatus.PartiallySucceeded) return 'success';
  return outcome === RunStatus.Canceled ? 'cancel' : 'failure';
}

/** A failing handler turns a successful run into a failed one. */
export function finalOutcome(outcome: RunStatusValue, handlers: readonly RunNode[]): RunStatusValue {
  const handlerFailed = handlers.some((h) => h.status === StepStatus.Failed);
  if (handlerFailed && (outcome === RunStatus.Succeeded || outcome === RunStatus.PartiallySucceeded))
    return RunStatus.Failed;
  return outcome;
}
