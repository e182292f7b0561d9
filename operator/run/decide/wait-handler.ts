/**
 * Dagu 2.x's wait handler (`handler_on.wait`, v2.15.1 `internal/runtime/runner.go`): each time
 * the run starts waiting for an approval (its first wait, and again after every answer that moved
 * it on: a push-back, or an approval after which another step waits), the handler runs once with
 * `DAG_WAITING_STEPS`, the waiting steps' names comma-separated. Its failure is only recorded:
 * it does not fail the run, as in Dagu. Level-triggered: `status.waits` counts the waits, and the
 * handler's record (`onWait`) carries the wait it ran for as its attempt number, which also names
 * its Pod, so a decision made again (after a restart too) neither misses a wait nor starts a
 * second Pod for one. Pure, over Work.
 */
import type { DagRunStatus } from '../../../core/resources/schemas.ts';
import { RunStatus, StepStatus, runStatusLabel } from '../../../core/resources/status.ts';
import { launchStep } from './launch.ts';
import { handlerStatus } from './variables.ts';
import { notStarted, type Launch, type Work } from './work.ts';

/** After the run's phase is decided: counts a wait that begins now, and starts its handler. */
export function waitBegins(work: Work): void {
  const begins = work.status.status === RunStatus.Waiting && work.input.status.status !== RunStatus.Waiting;
  if (begins) {
    const waits = (work.status.waits ?? 0) + 1;
    work.status = { ...work.status, waits };
    work.events.push({ reason: 'RunWaiting', message: `wait ${String(waits)}: ${waitingSteps(work.status, work)}` });
  }
  runWaitHandler(work);
}

/**
 * Starts the handler for the latest wait unless it ran for it already. One at a time: a wait that
 * begins while the previous wait's handler still runs gets its handler once that one has ended.
 */
function runWaitHandler(work: Work): void {
  const step = work.dag.handlerOn.wait;
  const waits = work.status.waits ?? 0;
  if (step === undefined || waits === 0) return;
  const node = work.handlers.get('wait');
  if (node?.status === StepStatus.Running) return;
  // Recorded as not started (a write that lost its launch): started now, as the init handler is.
  if (node !== undefined && (node.attempt ?? 0) >= waits && node.status !== StepStatus.NotStarted) return;
  work.handlers.set('wait', launchStep(work, step, { ...notStarted(step.name), attempt: waits }, 'wait'));
}

/** The waiting steps' names in the definition's order, comma-separated (Dagu's DAG_WAITING_STEPS). */
export function waitingSteps(status: DagRunStatus, work?: Work): string {
  const nodes = work === undefined ? (status.nodes ?? []) : [...work.nodes.values()];
  return nodes
    .filter((n) => n.status === StepStatus.Waiting)
    .map((n) => n.name)
    .join(',');
}

/** What the wait handler's Pod is given besides a handler's usual: DAG_WAITING_STEPS. */
export function waitHandlerVars(
  launch: Pick<Launch, 'handler'>,
  status: DagRunStatus,
): { name: string; value: string }[] {
  return launch.handler === 'wait' ? [{ name: 'DAG_WAITING_STEPS', value: waitingSteps(status) }] : [];
}

/** DAG_RUN_STATUS of a handler: `waiting` for the wait handler, which runs while the run waits; the steps' outcome for the others. */
export function handlerRunStatus(handler: NonNullable<Launch['handler']>, status: DagRunStatus): string {
  return handler === 'wait' ? runStatusLabel(RunStatus.Waiting) : handlerStatus(status);
}
