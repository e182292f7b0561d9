/** The engine ending a run or a step: stop requests, the run deadline, step deadlines. Pure. */
import type { Step } from '../../../core/dag/index.ts';
import type { RunNode } from '../../../core/resources/schemas.ts';
import { StepStatus } from '../../../core/resources/status.ts';
import { enqueuesItems, enqueueStopped } from './enqueue-items.ts';
import { phaseEnded, STEP_TIMEOUT, withStatus, type ObservedPod, type Work } from './work.ts';

/** A Pod still running its attempt: not terminated (a terminated one may wait for its log to be archived). */
function stillRunning(pod: ObservedPod): boolean {
  return pod.report === undefined && !phaseEnded(pod.phase);
}

/** Stop requests, the run deadline and step deadlines. */
export function endConditions(work: Work): void {
  runDeadline(work);
  for (const step of work.dag.steps) {
    const node = work.nodes.get(step.name) as RunNode;
    if (node.status !== StepStatus.Running) continue;
    if (work.ending) stopStep(work, step, node);
    else stepDeadline(work, step, node);
  }
  if (work.status.endReason === 'timeout') {
    // A timed-out run cancels what has not started (behaviour-notes 3).
    for (const [name, node] of work.nodes)
      if (node.status === StepStatus.NotStarted)
        work.nodes.set(name, withStatus(node, StepStatus.Canceled, { finishedAt: work.now, error: 'run timed out' }));
  }
}

function runDeadline(work: Work): void {
  const { now } = work.input;
  const { dag } = work;
  if (work.status.endReason === undefined && work.input.stop) {
    work.status = { ...work.status, endReason: 'stopped', error: 'stopped' };
    work.events.push({ reason: 'Stopping', message: 'stop requested' });
  }
  if (work.status.endReason !== undefined || dag.timeoutSec <= 0) return;
  const deadline = Date.parse(work.status.startedAt ?? work.now) + dag.timeoutSec * 1000;
  if (now.getTime() < deadline) {
    work.wake(deadline);
    return;
  }
  work.status = { ...work.status, endReason: 'timeout', error: `run timed out after ${String(dag.timeoutSec)} s` };
  work.events.push({ reason: 'TimedOut', message: `run exceeded timeoutSec ${String(dag.timeoutSec)}`, warning: true });
}

/**
 * Ending: a Pod is stopped; a step waiting for its next attempt is canceled at once. How long
 * a stopped Pod has to finish is its own spec's grace period (the run's maxCleanUpTimeSec).
 */
function stopStep(work: Work, step: Step, node: RunNode): void {
  // No Pod: the batches stop here (enqueue-items.ts).
  if (enqueuesItems(step)) {
    work.nodes.set(step.name, enqueueStopped(work, node));
    return;
  }
  if (step.parallel !== undefined) {
    for (const child of work.input.pods.filter(
      (p) => p.step === step.name && p.attempt === (node.attempt ?? 0) && stillRunning(p) && !p.deleting,
    ))
      work.stop.push({ pod: child.name });
    return;
  }
  const pod = work.podOf(node);
  if (pod === undefined && node.nextAttemptAt !== undefined)
    work.nodes.set(
      step.name,
      withStatus(node, StepStatus.Canceled, { finishedAt: work.now, error: 'stopped before its next attempt' }),
    );
  else if (pod !== undefined && stillRunning(pod) && !pod.deleting) work.stop.push({ pod: pod.name });
}

function stepDeadline(work: Work, step: Step, node: RunNode): void {
  const pod = work.podOf(node);
  if (step.timeoutSec <= 0 || pod === undefined || !stillRunning(pod)) return;
  const deadline = Date.parse(node.startedAt ?? work.now) + step.timeoutSec * 1000;
  if (work.input.now.getTime() < deadline) {
    work.wake(deadline);
    return;
  }
  if (!pod.deleting) work.stop.push({ pod: pod.name });
  work.nodes.set(step.name, { ...node, error: STEP_TIMEOUT });
}
