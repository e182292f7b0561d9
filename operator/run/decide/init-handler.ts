/**
 * Dagu 2.x's init handler (`handler_on.init`, v2.15.1 `internal/runtime/runner.go`): it runs
 * once the DAG's preconditions hold and before the first step. If it fails, no step starts and
 * the run is canceled (Dagu aborts it), so the abort (1.x cancel) and exit handlers run as for
 * any canceled run; skipped by its own precondition, it lets the steps run. Pure, over Work.
 */
import { StepStatus } from '../../../core/resources/status.ts';
import { launchStep, preconditionMet } from './launch.ts';
import { notStarted, withStatus, type Work } from './work.ts';

/** Whether the steps may be scheduled: no init handler, or it has succeeded or been skipped. */
export function initHandlerDone(work: Work): boolean {
  const step = work.dag.handlerOn.init;
  if (step === undefined) return true;
  const node = work.handlers.get('init');
  // Not recorded, or recorded before its launch was written: started now (a repeated launch finds the same Pod).
  if (node === undefined || node.status === StepStatus.NotStarted) {
    // A literal precondition is decided here, as for a step; a command one in the handler's Pod.
    if (step.preconditions.some((c) => preconditionMet(work, c) === false)) {
      work.handlers.set('init', withStatus(notStarted(step.name), StepStatus.Skipped, { finishedAt: work.now }));
      return true;
    }
    work.handlers.set('init', launchStep(work, step, notStarted(step.name), 'init'));
    return false;
  }
  if (node.status === StepStatus.Succeeded || node.status === StepStatus.Skipped) return true;
  if (node.status === StepStatus.Running) return false;
  work.status = {
    ...work.status,
    endReason: 'init',
    error: `the init handler failed${node.error === undefined ? '' : `: ${node.error}`}; no step was started`,
  };
  return false;
}
