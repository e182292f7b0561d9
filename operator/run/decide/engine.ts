/**
 * The run engine: from a snapshot of one DAGRun (its frozen definition, persisted status, the
 * Pods observed for it, the clock) to the next status and the actions that bring the world
 * closer to it. Pure and level-triggered: calling it again on the same snapshot gives the same
 * decision, so a reconcile can be repeated or interrupted anywhere without harm. The pieces:
 * observe-steps.ts reads what attempts report, launch.ts starts what is ready, deadlines.ts ends
 * runs and steps; this file starts, prepares and finishes the run.
 */
import type { Step } from '../../../core/dag/index.ts';
import type { DagRunStatus } from '../../../core/resources/schemas.ts';
import { RunStatus, StepStatus, runActive, runStatusLabel, stepDone } from '../../../core/resources/status.ts';
import { observeNode, observeSteps } from './observe-steps.ts';
import { answerApprovals, endWaits, waitingPhase } from './approval.ts';
import { endConditions } from './deadlines.ts';
import { continueEnqueues } from './enqueue-items.ts';
import { initHandlerDone } from './init-handler.ts';
import { launchStep, preconditionMet, schedule } from './launch.ts';
import { finalOutcome, outcomeHandler, stepsOutcome } from './outcome.ts';
import { preparedParamProblems, prepareStep, statusPrepared } from './prepare.ts';
import { endIfStalled } from './stall.ts';
import { waitBegins } from './wait-handler.ts';
import { anyNode, countNodes, HANDLER_KEYS, notStarted, Work, type Decision, type RunInput } from './work.ts';

export type { Decision, Launch, ObservedPod, RunEvent, RunInput } from './work.ts';

export function decide(input: RunInput): Decision {
  const work = new Work(input);
  const { definition } = input;
  if (work.status.status === undefined) start(work);
  if (work.status.status === RunStatus.Running && definition.needsPrepare && work.status.prepared === undefined) {
    prepare(work, prepareStep(definition.dag, definition.params));
  } else if (runActive(work.status.status)) {
    observeSteps(work);
    answerApprovals(work);
    endConditions(work);
    continueEnqueues(work);
    endWaits(work);
    if (work.status.endReason === undefined && initHandlerDone(work)) schedule(work);
    finishIfDone(work);
    waitingPhase(work);
    waitBegins(work);
    // Ended stalled, the run finishes as any ending run does: handlers, then its final status.
    if (endIfStalled(work)) finishIfDone(work);
  }
  const nodes = [...work.nodes.values()];
  const done = countNodes(work.nodes, (n) => stepDone(n.status));
  const status: DagRunStatus = {
    ...work.status,
    nodes,
    progress: `${String(done)}/${String(nodes.length)}`,
    ...Object.fromEntries([...work.handlers].map(([event, node]) => [HANDLER_KEYS[event], node])),
  };
  const requeueAfterMs = work.wakeAt === undefined ? undefined : Math.max(0, work.wakeAt - input.now.getTime());
  return {
    status,
    launch: work.launch,
    stop: work.stop,
    events: work.events,
    ...(requeueAfterMs === undefined ? {} : { requeueAfterMs }),
  };
}

function start(work: Work): void {
  const { definition } = work.input;
  if (definition.rejection !== undefined) {
    work.status = {
      status: RunStatus.Failed,
      statusLabel: runStatusLabel(RunStatus.Failed),
      startedAt: work.now,
      finishedAt: work.now,
      params: definition.paramsJson,
      error: definition.rejection,
      endReason: 'rejected',
    };
    work.events.push({ reason: 'Rejected', message: definition.rejection, warning: true });
    return;
  }
  // A run that waited in a queue keeps the time it was queued.
  const queuedAt = work.status.queuedAt === undefined ? {} : { queuedAt: work.status.queuedAt };
  work.status = {
    ...queuedAt,
    status: RunStatus.Running,
    statusLabel: runStatusLabel(RunStatus.Running),
    startedAt: work.now,
    params: definition.paramsJson,
  };
  // A run that prepares decides every DAG precondition in its prepare Pod, with evaluated values.
  if (!definition.needsPrepare) endUnlessPreconditionsHold(work, (c) => preconditionMet(work, c) !== false);
}

/** No step starts when a DAG precondition does not hold: the run ends canceled (behaviour-notes 4.8). */
function endUnlessPreconditionsHold(
  work: Work,
  holds: (condition: Step['preconditions'][number], index: number) => boolean,
): void {
  const unmet = work.dag.preconditions.filter((c, i) => !holds(c, i));
  if (unmet.length > 0) {
    work.status = {
      ...work.status,
      endReason: 'preconditions',
      error: `preconditions not met: ${unmet.map((c) => c.condition).join(', ')}`,
    };
  }
}

/**
 * Runs the prepare step before anything else; its evaluated values go into the status and the
 * steps start in the next round, with them.
 */
function prepare(work: Work, step: Step): void {
  const node = work.status.prepare;
  if (node === undefined) {
    work.status = { ...work.status, prepare: launchStep(work, step, notStarted(step.name)) };
    return;
  }
  const seen = observeNode(work, step, node, true);
  work.status = { ...work.status, prepare: seen };
  if (seen.status === StepStatus.Running) return;
  if (seen.status === StepStatus.Succeeded) {
    const report = work.input.pods.find((p) => p.step === step.name)?.report;
    const prepared = statusPrepared(report?.stdout ?? '', work.input.definition);
    work.status = { ...work.status, prepared };
    const { dag, params } = work.input.definition;
    const problems = preparedParamProblems(dag, params, prepared.params);
    if (problems.length > 0) {
      failPrepared(work, `evaluated params: ${problems.join('; ')}`);
      return;
    }
    // A status written before the prepare Pod decided preconditions has none: nothing to judge then.
    const verdicts = prepared.preconditions;
    if (verdicts !== undefined) endUnlessPreconditionsHold(work, (_c, i) => verdicts[i] === true);
    work.wake(work.input.now.getTime());
    return;
  }
  failPrepared(
    work,
    `preparing the run (env, params, dotenv, secrets) failed (${seen.error ?? 'exit'}): see the log of step kubedag-prepare`,
  );
}

function failPrepared(work: Work, error: string): void {
  work.status = {
    ...work.status,
    status: RunStatus.Failed,
    statusLabel: runStatusLabel(RunStatus.Failed),
    endReason: 'rejected',
    error,
    finishedAt: work.now,
  };
  work.events.push({ reason: 'PrepareFailed', message: error, warning: true });
}

/** When every step is done: the outcome handler, then the exit handler, then the final status. */
function finishIfDone(work: Work): void {
  if (anyNode(work.nodes, (n) => n.status === StepStatus.Running || n.status === StepStatus.Waiting)) return;
  // A wait handler still running when the run moves on ends first: the run's end deletes its Pods.
  if (work.handlers.get('wait')?.status === StepStatus.Running) return;
  const ending = work.status.endReason !== undefined;
  if (!ending && anyNode(work.nodes, (n) => n.status === StepStatus.NotStarted)) return;
  const nodes = [...work.nodes.values()];
  const outcome = stepsOutcome(nodes, work.status.endReason);
  const sequence = [outcomeHandler(outcome), 'exit' as const].filter(
    (event) => work.dag.handlerOn[event] !== undefined,
  );
  for (const event of sequence) {
    const node = work.handlers.get(event);
    const step = work.dag.handlerOn[event] as Step;
    // A handler recorded as not started (a write that lost its launch) is started now.
    if (node === undefined || node.status === StepStatus.NotStarted) {
      work.handlers.set(event, launchStep(work, step, notStarted(step.name), event));
      return;
    }
    if (!stepDone(node.status)) return;
  }
  // The wait handler's failure is only recorded (Dagu: a notification must not decide the run).
  const final = finalOutcome(
    outcome,
    [...work.handlers].filter(([event]) => event !== 'wait').map(([, node]) => node),
  );
  const firstError = nodes.find(
    (n) => (n.status === StepStatus.Failed && n.continued !== true) || n.status === StepStatus.Rejected,
  )?.error;
  work.status = {
    ...work.status,
    status: final,
    statusLabel: runStatusLabel(final),
    finishedAt: work.now,
    ...(work.status.error === undefined && firstError !== undefined ? { error: firstError } : {}),
  };
  // A plain success is in the status and its condition; an event (an API write) is kept for
  // the ends someone should look at.
  if (final !== RunStatus.Succeeded || work.input.routineEvents === true)
    work.events.push({
      reason: 'Finished',
      message: `run ${runStatusLabel(final)}`,
      warning: final === RunStatus.Failed,
    });
}
