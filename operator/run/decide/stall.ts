/**
 * The consistency rule: a run that says `running` has something that will move it on: an
 * attempt that runs or is about to (a Pod or child run, one just created, one launched now),
 * a step waiting for its next attempt or its start delay, or ready steps held back by the Pod
 * caps. A running run with none of these would wait for an event that never comes; it is an
 * engine bug or a lost status write, and the run ends `stalled` with the steps left named,
 * rather than staying running for good. Pure.
 *
 * A step that is running always has one of these: observe-steps.ts turns a running step whose Pod
 * vanished into a lost attempt, and launch.ts's deadlock check ends a run whose steps can never
 * become ready while a slot is free; this rule is the net under both.
 */
import { RunStatus, StepStatus, stepDone } from '../../../core/resources/status.ts';
import type { ObservedPod, Work } from './work.ts';

/** A Pod or child run that has not ended, or has ended and not yet reported. */
function pending(pod: ObservedPod): boolean {
  return pod.report === undefined && !pod.deleting;
}

function explained(work: Work): boolean {
  const { input } = work;
  if (work.launch.length > 0 || input.expected.size > 0 || input.pods.some(pending)) return true;
  if (work.status.heldSteps !== undefined) return true;
  const steps = [...work.nodes.values(), ...work.handlers.values()];
  if (steps.some((n) => n.status === StepStatus.Running)) return true;
  const startAt = Date.parse(work.status.startedAt ?? work.now) + work.dag.delaySec * 1000;
  return input.now.getTime() < startAt;
}

/** Ends the run `stalled` when it is still running with nothing to move it on. */
export function endIfStalled(work: Work): boolean {
  const { status } = work;
  if (
    status.status !== RunStatus.Running ||
    status.finishedAt !== undefined ||
    status.endReason !== undefined ||
    explained(work)
  )
    return false;
  const left = [...work.nodes.values(), ...work.handlers.values()].filter((n) => !stepDone(n.status));
  const named = left
    .slice(0, 10)
    .map((n) => `${n.name} (${n.statusLabel})`)
    .join(', ');
  const more = left.length > 10 ? ` and ${String(left.length - 10)} more` : '';
  const error = `stalled: the run had nothing running or waiting that could move it on (a Kubedag bug or a lost status write); steps left: ${named}${more}`;
  work.status = { ...status, endReason: 'stalled', error };
  work.events.push({ reason: 'RunStalled', message: error, warning: true });
  return true;
}
