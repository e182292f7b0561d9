/**
 * Attempts the Kubernetes API refused to create for good: an admission policy (a
 * ValidatingAdmissionPolicy, a webhook, PodSecurity `enforce`) denied the step Pod or child
 * run, or it is invalid (core/kube/errors.ts `createFailure`). The attempt failed without
 * running; its node says so with the API's message, and continueOn, the handlers and the
 * steps downstream then take it as any failure, in the next decision. Pure.
 *
 * A retryPolicy does not retry it: the same step gives the same Pod spec, which the same
 * policy refuses again, so a retry would only delay the verdict by its intervals. The verdict
 * is written with the decision's status, so an operator that restarts finds it there and
 * creates nothing again; one killed before that write asks again and is refused again.
 */
import type { DagRunStatus, RunNode } from '../../../core/resources/schemas.ts';
import { StepStatus } from '../../../core/resources/status.ts';
import { attemptEnded } from './attempt-records.ts';
import { PREPARE_STEP } from './prepare.ts';
import { HANDLER_KEYS, withStatus, type Launch } from './work.ts';

export interface Refusal {
  readonly launch: Launch;
  /** What the API server said. */
  readonly message: string;
}

/** The status with each refused attempt's step failed (or passed on by continueOn). */
export function withRefusals(status: DagRunStatus, refusals: readonly Refusal[], now: Date): DagRunStatus {
  let next = status;
  for (const refusal of refusals) next = refuse(next, refusal, now.toISOString());
  return next;
}

function refuse(status: DagRunStatus, { launch, message }: Refusal, now: string): DagRunStatus {
  const fail = (node: RunNode | undefined): RunNode | undefined =>
    node === undefined ? undefined : refusedNode(node, launch, message, now);
  if (launch.handler !== undefined) {
    const key = HANDLER_KEYS[launch.handler];
    return { ...status, [key]: fail(status[key]) };
  }
  if (launch.step.name === PREPARE_STEP) return { ...status, prepare: fail(status.prepare) };
  return {
    ...status,
    nodes: (status.nodes ?? []).map((n) => (n.name === launch.step.name ? (fail(n) as RunNode) : n)),
  };
}

/** What was refused, for people: the attempt's Pod, or a sub-DAG's child run. */
function refusedObject(launch: Launch): string {
  if (launch.item !== undefined)
    return `the child run of item ${String(launch.item.index)} of attempt ${String(launch.attempt)}`;
  return `the ${launch.step.call === undefined ? 'Pod' : 'child run'} of attempt ${String(launch.attempt)}`;
}

export function refusedNode(node: RunNode, launch: Launch, message: string, now: string): RunNode {
  if (node.status !== StepStatus.Running || (node.attempt ?? 0) !== launch.attempt) return node;
  // This attempt has no exit code: an earlier attempt's must not pass for its.
  const { exitCode: _earlier, nextAttemptAt: _wait, ...rest } = node;
  const { continueOn } = launch.step;
  const status = continueOn.failure && continueOn.markSuccess ? StepStatus.Succeeded : StepStatus.Failed;
  const error = `${refusedObject(launch)} was refused by the Kubernetes API: ${message}`;
  const failed = withStatus(rest, status, { finishedAt: now, continued: continueOn.failure, error });
  return attemptEnded(failed, { attempt: launch.attempt, at: now, status: StepStatus.Failed });
}
