/**
 * The engine starting what is ready: steps in definition order within the DAG's and the
 * operator's limits, retries and repeats whose wait is over, sub-DAG attempts. Pure.
 */
import type { HandlerEvent, Step } from '../../../core/dag/index.ts';
import { stepPodName } from '../../../core/resources/names.ts';
import type { RunNode } from '../../../core/resources/schemas.ts';
import { StepStatus } from '../../../core/resources/status.ts';
import { observeParallel } from './observe-steps.ts';
import { subRunId } from './children.ts';
import { enqueuesItems, launchEnqueueItems } from './enqueue-items.ts';
import { literalPrecondition } from './run-definition.ts';
import { attemptBegun } from './attempt-records.ts';
import { propagate, readiness } from './graph.ts';
import { conditionWithStepOutputs, declaredOutputRefs, variables } from './variables.ts';
import { anyNode, countNodes, withStatus, type Work } from './work.ts';

const HELD_RECHECK_MS = 1000;

export function running(work: Work): number {
  return countNodes(work.nodes, (n) => n.status === StepStatus.Running && n.nextAttemptAt === undefined);
}

function capacity(work: Work): number {
  const limits = [work.dag.maxActiveSteps, work.input.maxRunningPods].filter((n) => n > 0);
  return limits.length === 0 ? Number.POSITIVE_INFINITY : Math.min(...limits) - running(work);
}

/** A literal precondition decided here with the run's current variables; undefined when only a Pod can decide it. */
export function preconditionMet(work: Work, condition: Step['preconditions'][number]): boolean | undefined {
  const status = { nodes: [...work.nodes.values()] };
  return literalPrecondition(
    conditionWithStepOutputs(condition, declaredOutputRefs(work.dag, status)),
    variables(work.input.definition, status),
  );
}

/** Starts what is ready, in definition order, within the limits. */
export function schedule(work: Work): void {
  const { now } = work.input;
  const { dag } = work;
  propagate(dag.steps, work.nodes, work.now, work.steps);
  const startAt = Date.parse(work.status.startedAt ?? work.now) + dag.delaySec * 1000;
  if (now.getTime() < startAt) {
    work.wake(startAt);
    return;
  }
  const steps = work.steps;
  let free = Math.min(capacity(work), work.input.podBudget ?? Number.POSITIVE_INFINITY);
  let held = 0;
  for (const step of dag.steps) {
    const turn = scheduleStep(work, step, steps, free);
    if (turn === 'launched') free -= 1;
    if (turn === 'held') held += 1;
  }
  reportHeld(work, held);
  propagate(dag.steps, work.nodes, work.now, work.steps);
  const stuck =
    work.launch.length === 0 && running(work) === 0 && anyNode(work.nodes, (n) => n.status === StepStatus.NotStarted);
  // A step waiting for a person holds its dependents back: that is no deadlock.
  const waiting = anyNode(work.nodes, (n) => n.nextAttemptAt !== undefined || n.status === StepStatus.Waiting);
  if (stuck && !waiting && free > 0) {
    work.status = {
      ...work.status,
      endReason: 'deadlock',
      error: 'deadlock: steps remain that can never become ready',
    };
  }
}

/**
 * Steps ready to start that only the operator's Pod caps hold back (not the DAG's own
 * maxActiveSteps) are reported in the status, and the run looks again soon: capacity that
 * other runs free brings it no event of its own.
 */
function reportHeld(work: Work, held: number): void {
  const maxActive = work.dag.maxActiveSteps;
  const byOperator = held > 0 && (maxActive <= 0 || running(work) < maxActive);
  const { heldSteps: _previous, ...rest } = work.status;
  work.status = byOperator ? { ...rest, heldSteps: held } : rest;
  if (byOperator) work.wake(work.input.now.getTime() + HELD_RECHECK_MS);
}

/** One step's turn: it launched, it was ready but no slot was free, or neither. */
function scheduleStep(
  work: Work,
  step: Step,
  steps: ReadonlyMap<string, Step>,
  free: number,
): 'launched' | 'held' | 'idle' {
  const node = work.nodes.get(step.name) as RunNode;
  if (node.status === StepStatus.Running && node.nextAttemptAt !== undefined) {
    const at = Date.parse(node.nextAttemptAt);
    if (at > work.input.now.getTime()) work.wake(at);
    if (at > work.input.now.getTime()) return 'idle';
    if (free <= 0) return 'held';
    const { nextAttemptAt: _due, ...rest } = node;
    work.nodes.set(step.name, launchStep(work, step, rest));
    return 'launched';
  }
  if (node.status !== StepStatus.NotStarted || readiness(step, work.nodes, steps).kind !== 'ready') return 'idle';
  if (step.preconditions.some((c) => preconditionMet(work, c) === false)) {
    work.nodes.set(step.name, withStatus(node, StepStatus.Skipped, { finishedAt: work.now }));
    return 'idle';
  }
  if (free <= 0) return 'held';
  work.nodes.set(step.name, launchStep(work, step, node));
  return 'launched';
}

export function launchStep(work: Work, step: Step, node: RunNode, handler?: HandlerEvent): RunNode {
  const attempt = node.attempt ?? 0;
  if (enqueuesItems(step)) return launchEnqueueItems(work, step, node, handler);
  if (step.parallel !== undefined)
    return observeParallel(
      work,
      step,
      attemptBegun(withStatus(node, StepStatus.Running, { startedAt: work.now }), work.now),
    );
  const { run } = work.input;
  const pod = stepPodName(run.name, step.name, attempt);
  if (work.input.routineEvents === true)
    work.events.push({ reason: 'StepStarted', message: `${step.name}: attempt ${String(attempt)} in Pod ${pod}` });
  work.launch.push({ step, attempt, pod, ...(handler === undefined ? {} : { handler }) });
  const child = step.call === undefined ? {} : subRunFields(node, subRunId(run.dagRunId, step.name, attempt));
  return attemptBegun(
    withStatus(node, StepStatus.Running, {
      ...(attempt === 0 || node.startedAt === undefined ? { startedAt: work.now } : {}),
      pod,
      ...child,
    }),
    work.now,
  );
}

/** The child run of this attempt in subRuns; those of earlier attempts move to subRunsRepeated. */
function subRunFields(node: RunNode, dagRunId: string): Pick<RunNode, 'subRuns' | 'subRunsRepeated'> {
  const earlier = [...(node.subRunsRepeated ?? []), ...(node.subRuns ?? [])].filter((r) => r.dagRunId !== dagRunId);
  return { subRuns: [{ dagRunId }], ...(earlier.length === 0 ? {} : { subRunsRepeated: earlier }) };
}
