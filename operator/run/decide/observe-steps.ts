/**
 * The engine reading what running attempts say: a Pod adopted after a crash, a Pod gone or lost
 * with its node (lost.ts), a report that finishes the attempt (done, or another attempt after a
 * wait), and the child runs of a `parallel` step. Pure.
 */
import type { Step } from '../../../core/dag/index.ts';
import type { RunNode } from '../../../core/resources/schemas.ts';
import { StepStatus, stepStatusLabel, type StepStatusValue } from '../../../core/resources/status.ts';
import {
  judgeAttempt,
  judgeLostAttempt,
  type AttemptContext,
  type AttemptReport,
  type AttemptVerdict,
} from './attempt-verdict.ts';
import { podLoss } from './lost.ts';
import { foreachItems, parallelItems, subRunId } from './children.ts';
import { isEnqueue } from './enqueue.ts';
import { keyedItems } from './foreach-keys.ts';
import { stepPodName } from '../../../core/resources/names.ts';
import { keepOutput, type OutputFields } from '../pods/output-values.ts';
import { attemptBegun, attemptEnded, attemptStatus } from './attempt-records.ts';
import { fanOut } from './parallel.ts';
import { stepForAttempt } from './retry-status.ts';
import { declaredOutputRefs, resolveCount, variables } from './variables.ts';
import { STEP_TIMEOUT, withStatus, type Work } from './work.ts';

/** Reads what the Pods of running steps and handlers say. */
export function observeSteps(work: Work): void {
  // A step that has not started has nothing to observe unless a Pod of it exists (adopt): the
  // steps that started, then those the Pods name, rather than every step of a big run.
  for (const [name, node] of work.nodes) {
    if (node.status === StepStatus.NotStarted) continue;
    const seen = observeNode(work, work.steps.get(name) as Step, node);
    if (seen !== node) work.nodes.set(name, seen);
  }
  for (const pod of work.input.pods) {
    const node = work.nodes.get(pod.step);
    if (node?.status !== StepStatus.NotStarted) continue;
    const adopted = adopt(work, node);
    if (adopted !== node) work.nodes.set(pod.step, observeNode(work, work.steps.get(pod.step) as Step, adopted));
  }
  for (const [event, node] of work.handlers) {
    const step = work.dag.handlerOn[event] as Step;
    work.handlers.set(event, observeNode(work, step, node, true));
  }
}

/** A Pod created just before a crash, before the status said so: the step is running. */
function adopt(work: Work, node: RunNode): RunNode {
  if (node.status !== StepStatus.NotStarted) return node;
  const pod = work.podOf(node);
  return pod === undefined
    ? node
    : attemptBegun(withStatus(node, StepStatus.Running, { startedAt: work.now, pod: pod.name }), work.now);
}

/** Handlers run because the run is ending: a stop or timeout does not cancel them. */
export function observeNode(work: Work, step: Step, node: RunNode, handler = false): RunNode {
  if (node.status !== StepStatus.Running) return node;
  if (node.nextAttemptAt !== undefined && node.pod === undefined) return node;
  // An enqueue step's runs are not its children: it goes on with its batches (enqueue-items.ts)
  // and ends in the write that queued the last of them.
  if (step.parallel !== undefined) return isEnqueue(step) ? node : observeParallel(work, step, node);
  const pod = work.podOf(node);
  if (pod === undefined) {
    if (node.pod !== undefined && work.input.expected.has(node.pod)) return node;
    return loseAttempt(work, step, node, `the Pod of attempt ${String(node.attempt ?? 0)} disappeared`);
  }
  if (pod.report !== undefined) return finishAttempt(work, step, node, pod.report, handler);
  const loss = podLoss(pod, work.input.now);
  if (loss.lost) return loseAttempt(work, step, node, loss.why);
  if (loss.lookAgainAt !== undefined) work.wake(loss.lookAgainAt);
  return node;
}

/**
 * An attempt that ended without an exit code (its Pod vanished, or is lost with its node):
 * judged as a failure that retryPolicy and continueOn apply to, with the attempt's record
 * closed. A run that is ending cancels it instead.
 */
function loseAttempt(work: Work, step: Step, node: RunNode, why: string): RunNode {
  const after = lostVerdict(work, step, node, why);
  return attemptEnded(after, {
    attempt: node.attempt ?? 0,
    at: work.now,
    status: after.status === StepStatus.Running ? StepStatus.Failed : (after.status as StepStatusValue),
  });
}

/** What judging an attempt of the step needs beyond its report: the step's counts so far and the DAG's limits. */
function judging(work: Work, node: RunNode, step: Step): AttemptContext {
  const { definition } = work.input;
  // A picked output's literal may name the variables the step sees (Dagu resolves them when the step ends).
  const picksLiteral = step.pickedOutputs !== undefined && 'entries' in step.pickedOutputs;
  return {
    retryCount: node.retryCount ?? 0,
    doneCount: node.doneCount ?? 0,
    maxOutputSize: work.dag.maxOutputSize,
    resolveCount: (value) => resolveCount(value, definition),
    ...(picksLiteral
      ? {
          variables: variables(definition, { nodes: [...work.nodes.values()] }, step, work.dag.steps),
          steps: declaredOutputRefs(work.dag, { nodes: [...work.nodes.values()] }),
        }
      : {}),
  };
}

function lostVerdict(work: Work, step: Step, node: RunNode, why: string): RunNode {
  // A stop deletes a Pod that had not started yet: that is the stop, not a lost Pod.
  if (work.ending)
    return withStatus(node, StepStatus.Canceled, {
      finishedAt: work.now,
      error: `stopped before attempt ${String(node.attempt ?? 0)} finished`,
    });
  // This attempt has no exit code: an earlier attempt's must not pass for its.
  const { exitCode: _earlier, ...rest } = node;
  if (node.error === STEP_TIMEOUT)
    return withStatus(rest, StepStatus.Failed, { finishedAt: work.now, doneCount: (node.doneCount ?? 0) + 1 });
  const verdict = judgeLostAttempt(stepForAttempt(step, work.status), why, judging(work, node, step));
  if (verdict.kind === 'again') return nextAttempt(work, step, rest, { verdict, outputs: {} });
  if (verdict.status === StepStatus.Failed)
    work.events.push({ reason: 'StepFailed', message: `${step.name}: failed (${why})`, warning: true });
  return withStatus(rest, verdict.status, { finishedAt: work.now, continued: verdict.continued, error: why });
}

/** A foreach whose items expression is no JSON array fails before any item starts, as in Dagu. */
function itemsFailed(work: Work, step: Step, node: RunNode, error: string): RunNode {
  work.events.push({ reason: 'StepFailed', message: `${step.name}: failed (${error})`, warning: true });
  return attemptEnded(withStatus(node, StepStatus.Failed, { finishedAt: work.now, error }), {
    attempt: node.attempt ?? 0,
    at: work.now,
    status: StepStatus.Failed,
  });
}

/** Starts the items that may start and, once all children ended, judges the step. */
export function observeParallel(work: Work, step: Step, node: RunNode): RunNode {
  const attempt = node.attempt ?? 0;
  const { definition, run } = work.input;
  const status = { nodes: [...work.nodes.values()] };
  const vars = variables(definition, status, step, work.dag.steps);
  const refs = declaredOutputRefs(work.dag, status);
  const listed =
    step.parallel?.foreach === true ? foreachItems(step, vars, refs) : { items: parallelItems(step, vars) };
  // A foreach.key names each item before any starts; a bad one fails the step first, as in Dagu.
  const key = step.parallel?.key;
  const resolved = key === undefined || 'error' in listed ? listed : keyedItems(key, listed.items, vars, refs);
  if ('error' in resolved) return itemsFailed(work, step, node, resolved.error);
  const { items } = resolved;
  const children = work.input.pods
    .filter((p) => p.step === step.name && p.attempt === attempt && p.item !== undefined)
    .map((p) => ({ item: p.item ?? 0, name: p.name, ...(p.report === undefined ? {} : { report: p.report }) }));
  const itemName = (i: number): string => `${step.name}[${String(i)}]`;
  const out = fanOut(step, items, children, (i) => subRunId(run.dagRunId, itemName(i), attempt), vars);
  if (!work.ending) {
    for (const index of out.start) {
      const pod = stepPodName(run.name, itemName(index), attempt);
      if (!work.input.expected.has(pod)) work.launch.push({ step, attempt, pod, item: { index, value: items[index] } });
    }
  }
  const updated = { ...node, subRuns: out.subRuns };
  return out.report === undefined ? updated : finishAttempt(work, step, updated, out.report, false);
}

/** The attempt ended: the step's next state, with the attempt's record closed. */
function finishAttempt(work: Work, step: Step, node: RunNode, report: AttemptReport, handler: boolean): RunNode {
  const after = judged(work, step, node, report, handler);
  const exitCode = after.exitCode ?? report.exitCode;
  return attemptEnded(after, {
    attempt: node.attempt ?? 0,
    at: work.now,
    status: attemptStatus(after, exitCode),
    exitCode,
  });
}

function judged(work: Work, step: Step, node: RunNode, report: AttemptReport, handler: boolean): RunNode {
  const base = { exitCode: report.exitCode, finishedAt: work.now };
  if (node.error === STEP_TIMEOUT)
    return withStatus(node, StepStatus.Failed, { ...base, exitCode: 124, doneCount: (node.doneCount ?? 0) + 1 });
  if (!handler && work.ending) {
    return withStatus(node, StepStatus.Canceled, {
      ...base,
      error: work.status.endReason === 'stopped' ? 'stopped' : 'run timed out',
    });
  }
  const verdict = judgeAttempt(stepForAttempt(step, work.status), report, judging(work, node, step));
  // Declared outputs are the latest attempt's, as Dagu clears them when an attempt starts.
  const outputs = {
    ...keepOutput(node, step.output, verdict.output, node.attempt ?? 0),
    ...(verdict.stepOutputs === undefined ? {} : { stepOutputs: verdict.stepOutputs }),
  };
  return verdict.kind === 'again'
    ? nextAttempt(work, step, node, { verdict, outputs, exitCode: report.exitCode })
    : finished(work, step, node, { verdict, outputs, base });
}

interface Again {
  readonly verdict: Extract<AttemptVerdict, { kind: 'again' }>;
  readonly outputs: OutputFields;
  /** The ended attempt's; absent when it ended without one (lost). */
  readonly exitCode?: number;
}

/** The step stays running: another attempt (retry) or execution (repeat) after a wait. */
function nextAttempt(work: Work, step: Step, node: RunNode, { verdict, outputs, exitCode }: Again): RunNode {
  const nextAttemptAt = new Date(work.input.now.getTime() + verdict.delayMs).toISOString();
  const counters =
    verdict.why === 'retry' ? { retryCount: (node.retryCount ?? 0) + 1 } : { doneCount: (node.doneCount ?? 0) + 1 };
  work.events.push({
    reason: verdict.why === 'retry' ? 'StepRetrying' : 'StepRepeating',
    message: `${step.name}: attempt ${String((node.attempt ?? 0) + 1)} in ${String(verdict.delayMs)} ms`,
  });
  const { pod: _finished, outputs: _o, outputRefs: _r, stepOutputs: _s, ...rest } = node;
  return {
    ...rest,
    ...counters,
    ...(exitCode === undefined ? {} : { exitCode }),
    attempt: (node.attempt ?? 0) + 1,
    nextAttemptAt,
    ...outputs,
    ...(verdict.error === undefined ? {} : { error: verdict.error }),
  };
}

interface Finished {
  readonly verdict: Extract<AttemptVerdict, { kind: 'done' }>;
  readonly outputs: OutputFields;
  readonly base: { exitCode: number; finishedAt: string };
}

function finished(work: Work, step: Step, node: RunNode, { verdict, outputs, base }: Finished): RunNode {
  // Events cost an API write each: failures are worth one, routine step ends are in the status.
  if (verdict.status === StepStatus.Failed)
    work.events.push({
      reason: 'StepFailed',
      message: `${step.name}: failed${verdict.error === undefined ? '' : ` (${verdict.error})`}`,
      warning: true,
    });
  else if (work.input.routineEvents === true)
    work.events.push({ reason: 'StepFinished', message: `${step.name}: ${stepStatusLabel(verdict.status)}` });
  const doneCount = step.repeatPolicy === undefined ? node.doneCount : (node.doneCount ?? 0) + 1;
  const { error: _previous, nextAttemptAt: _wait, outputs: _o, outputRefs: _r, stepOutputs: _s, ...rest } = node;
  return withStatus(rest, verdict.status, {
    ...base,
    continued: verdict.continued,
    ...(doneCount === undefined ? {} : { doneCount }),
    ...(verdict.error === undefined ? {} : { error: verdict.error }),
    ...outputs,
  });
}
