/**
 * The run engine: from a snapshot of one DAGRun (its frozen definition, persisted status, the
 * Pods observed for it, the clock) to the next status and the actions that bring the world
 * closer to it. Pure and level-triggered: calling it again on the same snapshot gives the same
 * decision, so a reconcile can be repeated or interrupted anywhere without harm.
 */
import type { Condition, Dag, HandlerEvent, Step } from '../../core/dag/index.ts';
import type { DagRunStatus, RunNode } from '../../core/resources/schemas.ts';
import { RunStatus, StepStatus, runStatusLabel, stepDone, stepStatusLabel } from '../../core/resources/status.ts';
import { judgeAttempt, type AttemptReport, type AttemptVerdict } from './attempt.ts';
import { propagate, readiness } from './graph.ts';
import { fanOut } from './parallel.ts';
import { stepForAttempt } from './retry.ts';
import { finalOutcome, outcomeHandler, stepsOutcome } from './outcome.ts';
import { keepOutput, type OutputFields } from './outputs.ts';

export interface ObservedPod {
  readonly name: string;
  readonly step: string;
  readonly attempt: number;
  /** The item of a `parallel` step this child run is for. */
  readonly item?: number;
  readonly phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed';
  readonly deleting: boolean;
  /** Present once the Pod has terminated and what it reported has been gathered. */
  readonly report?: AttemptReport;
}

export interface RunInput {
  readonly dag: Dag;
  /** Why the run cannot start at all (invalid definition, unsupported features). */
  readonly rejection?: string;
  readonly status: DagRunStatus;
  readonly stop: boolean;
  readonly pods: readonly ObservedPod[];
  /** Pods this operator created that its cache has not shown yet. */
  readonly expected: ReadonlySet<string>;
  readonly now: Date;
  /** Effective parameters, JSON-encoded, recorded when the run starts. */
  readonly params: string;
  /** The operator's cap on this run's running step Pods (0: none). */
  readonly maxRunningPods: number;
  /** Also record routine Events: every step started and finished, and plain successes. */
  readonly routineEvents?: boolean;
  /** New step Pods the operator's overall cap lets this run start now (absent: no cap). */
  readonly podBudget?: number;
  readonly podName: (step: string, attempt: number) => string;
  /** The run id of the child run a sub-DAG step's attempt starts. */
  readonly subRunId?: (step: string, attempt: number) => string;
  /** A step that must run first: it evaluates env and params with command substitution. */
  readonly prepare?: Step;
  /** Reads what the prepare step printed into the status. */
  readonly readPrepared?: (stdout: string) => NonNullable<DagRunStatus['prepared']>;
  /** The items of a `parallel` step, resolved with the run's variables and current outputs. */
  readonly parallelItems?: (step: Step, nodes: readonly RunNode[]) => unknown[];
  readonly resolveCount: (value: number | string) => number;
  /** A literal precondition decided here; undefined when only a Pod can decide it. */
  readonly preconditionMet: (condition: Condition) => boolean | undefined;
}

export interface Launch {
  readonly step: Step;
  readonly attempt: number;
  readonly pod: string;
  readonly handler?: HandlerEvent;
  /** For a `parallel` step: which item, and its value. */
  readonly item?: { readonly index: number; readonly value: unknown };
}

export interface RunEvent {
  readonly reason: string;
  readonly message: string;
  readonly warning?: boolean;
}

export interface Decision {
  readonly status: DagRunStatus;
  readonly launch: Launch[];
  readonly stop: { readonly pod: string; readonly graceSeconds: number }[];
  readonly requeueAfterMs?: number;
  readonly events: RunEvent[];
}

const HANDLER_KEYS: Record<HandlerEvent, 'onSuccess' | 'onFailure' | 'onCancel' | 'onExit'> = { success: 'onSuccess', failure: 'onFailure', cancel: 'onCancel', exit: 'onExit' };
const STEP_TIMEOUT = 'step timed out';

function notStarted(name: string): RunNode {
  return { name, status: StepStatus.NotStarted, statusLabel: 'not_started', retryCount: 0, doneCount: 0, attempt: 0 };
}

function withStatus(node: RunNode, status: number, fields: Partial<RunNode> = {}): RunNode {
  return { ...node, ...fields, status, statusLabel: stepStatusLabel(status) };
}

/** Mutable working copy of one decision. */
class Work {
  readonly input: RunInput;
  readonly now: string;
  readonly nodes: Map<string, RunNode>;
  readonly handlers = new Map<HandlerEvent, RunNode>();
  readonly launch: Launch[] = [];
  readonly stop: { pod: string; graceSeconds: number }[] = [];
  readonly events: RunEvent[] = [];
  status: DagRunStatus;
  wakeAt: number | undefined;

  constructor(input: RunInput) {
    this.input = input;
    this.now = input.now.toISOString();
    this.status = { ...input.status };
    const previous = new Map((input.status.nodes ?? []).map((n) => [n.name, n]));
    this.nodes = new Map(input.dag.steps.map((s) => [s.name, previous.get(s.name) ?? notStarted(s.name)]));
    for (const [event, key] of Object.entries(HANDLER_KEYS) as [HandlerEvent, (typeof HANDLER_KEYS)[HandlerEvent]][]) {
      const node = input.status[key];
      if (node !== undefined) this.handlers.set(event, node);
    }
  }

  wake(atMs: number): void {
    this.wakeAt = this.wakeAt === undefined ? atMs : Math.min(this.wakeAt, atMs);
  }

  podOf(node: RunNode): ObservedPod | undefined {
    return this.input.pods.find((p) => p.step === node.name && p.attempt === (node.attempt ?? 0));
  }
}

export function decide(input: RunInput): Decision {
  const work = new Work(input);
  if (work.status.status === undefined) start(work);
  if (work.status.status === RunStatus.Running && input.prepare !== undefined && work.status.prepared === undefined) {
    prepare(work, input.prepare);
  } else if (work.status.status === RunStatus.Running) {
    observeSteps(work);
    endConditions(work);
    if (work.status.endReason === undefined) schedule(work);
    finishIfDone(work);
  }
  const nodes = [...work.nodes.values()];
  const done = nodes.filter((n) => stepDone(n.status)).length;
  const status: DagRunStatus = {
    ...work.status,
    nodes,
    progress: `${String(done)}/${String(nodes.length)}`,
    ...Object.fromEntries([...work.handlers].map(([event, node]) => [HANDLER_KEYS[event], node])),
  };
  const requeueAfterMs = work.wakeAt === undefined ? undefined : Math.max(0, work.wakeAt - input.now.getTime());
  return { status, launch: work.launch, stop: work.stop, events: work.events, ...(requeueAfterMs === undefined ? {} : { requeueAfterMs }) };
}

function start(work: Work): void {
  const { input } = work;
  if (input.rejection !== undefined) {
    work.status = { status: RunStatus.Failed, statusLabel: runStatusLabel(RunStatus.Failed), startedAt: work.now, finishedAt: work.now, params: input.params, error: input.rejection, endReason: 'rejected' };
    work.events.push({ reason: 'Rejected', message: input.rejection, warning: true });
    return;
  }
  // A run that waited in a queue keeps the time it was queued.
  const queuedAt = work.status.queuedAt === undefined ? {} : { queuedAt: work.status.queuedAt };
  work.status = { ...queuedAt, status: RunStatus.Running, statusLabel: runStatusLabel(RunStatus.Running), startedAt: work.now, params: input.params };
  const unmet = input.dag.preconditions.filter((c) => input.preconditionMet(c) === false);
  if (unmet.length > 0) {
    work.status = { ...work.status, endReason: 'preconditions', error: `preconditions not met: ${unmet.map((c) => c.condition).join(', ')}` };
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
    work.status = { ...work.status, prepared: work.input.readPrepared?.(report?.stdout ?? '') ?? { env: [], params: [] } };
    work.wake(work.input.now.getTime());
    return;
  }
  const error = `preparing the run (env, params, dotenv, secrets) failed (${seen.error ?? 'exit'}): see the log of step kubedag-prepare`;
  work.status = { ...work.status, status: RunStatus.Failed, statusLabel: runStatusLabel(RunStatus.Failed), endReason: 'rejected', error, finishedAt: work.now };
  work.events.push({ reason: 'PrepareFailed', message: error, warning: true });
}

/** Reads what the Pods of running steps and handlers say. */
function observeSteps(work: Work): void {
  const steps = new Map(work.input.dag.steps.map((s) => [s.name, s]));
  for (const [name, node] of work.nodes) {
    const step = steps.get(name) as Step;
    work.nodes.set(name, observeNode(work, step, adopt(work, node)));
  }
  for (const [event, node] of work.handlers) {
    const step = work.input.dag.handlerOn[event] as Step;
    work.handlers.set(event, observeNode(work, step, node, true));
  }
}

/** A Pod created just before a crash, before the status said so: the step is running. */
function adopt(work: Work, node: RunNode): RunNode {
  if (node.status !== StepStatus.NotStarted) return node;
  const pod = work.podOf(node);
  return pod === undefined ? node : withStatus(node, StepStatus.Running, { startedAt: work.now, pod: pod.name });
}

/** Handlers run because the run is ending: a stop or timeout does not cancel them. */
function observeNode(work: Work, step: Step, node: RunNode, handler = false): RunNode {
  if (node.status !== StepStatus.Running) return node;
  if (node.nextAttemptAt !== undefined && node.pod === undefined) return node;
  if (step.parallel !== undefined) return observeParallel(work, step, node);
  const pod = work.podOf(node);
  if (pod === undefined) {
    if (node.pod !== undefined && work.input.expected.has(node.pod)) return node;
    const stopping = work.status.endReason === 'stopped' || work.status.endReason === 'timeout';
    return withStatus(node, stopping ? StepStatus.Canceled : StepStatus.Failed, { finishedAt: work.now, error: `the Pod of attempt ${String(node.attempt ?? 0)} disappeared` });
  }
  if (pod.report === undefined) return node;
  return finishAttempt(work, step, node, pod.report, handler);
}

/** Starts the items that may start and, once all children ended, judges the step. */
function observeParallel(work: Work, step: Step, node: RunNode): RunNode {
  const attempt = node.attempt ?? 0;
  const items = work.input.parallelItems?.(step, [...work.nodes.values()]) ?? [];
  const children = work.input.pods.filter((p) => p.step === step.name && p.attempt === attempt && p.item !== undefined).map((p) => ({ item: p.item ?? 0, name: p.name, ...(p.report === undefined ? {} : { report: p.report }) }));
  const itemName = (i: number): string => `${step.name}[${String(i)}]`;
  const out = fanOut(step, items, children, (i) => work.input.subRunId?.(itemName(i), attempt) ?? '');
  const ending = work.status.endReason === 'stopped' || work.status.endReason === 'timeout';
  if (!ending) {
    for (const index of out.start) {
      const pod = work.input.podName(itemName(index), attempt);
      if (!work.input.expected.has(pod)) work.launch.push({ step, attempt, pod, item: { index, value: items[index] } });
    }
  }
  const updated = { ...node, subRuns: out.subRuns };
  return out.report === undefined ? updated : finishAttempt(work, step, updated, out.report, false);
}

function finishAttempt(work: Work, step: Step, node: RunNode, report: AttemptReport, handler: boolean): RunNode {
  const base = { exitCode: report.exitCode, finishedAt: work.now };
  if (node.error === STEP_TIMEOUT) return withStatus(node, StepStatus.Failed, { ...base, exitCode: 124, doneCount: (node.doneCount ?? 0) + 1 });
  if (!handler && (work.status.endReason === 'stopped' || work.status.endReason === 'timeout')) {
    return withStatus(node, StepStatus.Canceled, { ...base, error: work.status.endReason === 'stopped' ? 'stopped' : 'run timed out' });
  }
  const verdict = judgeAttempt(stepForAttempt(step, work.status), report, {
    retryCount: node.retryCount ?? 0,
    doneCount: node.doneCount ?? 0,
    maxOutputSize: work.input.dag.maxOutputSize,
    resolveCount: work.input.resolveCount,
  });
  const outputs = keepOutput(node, step.output, verdict.output, node.attempt ?? 0);
  return verdict.kind === 'again' ? nextAttempt(work, step, node, { verdict, outputs, exitCode: report.exitCode }) : finished(work, step, node, { verdict, outputs, base });
}

interface Again {
  readonly verdict: Extract<AttemptVerdict, { kind: 'again' }>;
  readonly outputs: OutputFields;
  readonly exitCode: number;
}

/** The step stays running: another attempt (retry) or execution (repeat) after a wait. */
function nextAttempt(work: Work, step: Step, node: RunNode, { verdict, outputs, exitCode }: Again): RunNode {
  const nextAttemptAt = new Date(work.input.now.getTime() + verdict.delayMs).toISOString();
  const counters = verdict.why === 'retry' ? { retryCount: (node.retryCount ?? 0) + 1 } : { doneCount: (node.doneCount ?? 0) + 1 };
  work.events.push({ reason: verdict.why === 'retry' ? 'StepRetrying' : 'StepRepeating', message: `${step.name}: attempt ${String((node.attempt ?? 0) + 1)} in ${String(verdict.delayMs)} ms` });
  const { pod: _finished, outputs: _o, outputRefs: _r, ...rest } = node;
  return { ...rest, ...counters, exitCode, attempt: (node.attempt ?? 0) + 1, nextAttemptAt, ...outputs, ...(verdict.error === undefined ? {} : { error: verdict.error }) };
}

interface Finished {
  readonly verdict: Extract<AttemptVerdict, { kind: 'done' }>;
  readonly outputs: OutputFields;
  readonly base: { exitCode: number; finishedAt: string };
}

function finished(work: Work, step: Step, node: RunNode, { verdict, outputs, base }: Finished): RunNode {
  // Events cost an API write each: failures are worth one, routine step ends are in the status.
  if (verdict.status === StepStatus.Failed) work.events.push({ reason: 'StepFailed', message: `${step.name}: failed${verdict.error === undefined ? '' : ` (${verdict.error})`}`, warning: true });
  else if (work.input.routineEvents === true) work.events.push({ reason: 'StepFinished', message: `${step.name}: ${stepStatusLabel(verdict.status)}` });
  const doneCount = step.repeatPolicy === undefined ? node.doneCount : (node.doneCount ?? 0) + 1;
  const { error: _previous, nextAttemptAt: _wait, outputs: _o, outputRefs: _r, ...rest } = node;
  return withStatus(rest, verdict.status, {
    ...base,
    continued: verdict.continued,
    ...(doneCount === undefined ? {} : { doneCount }),
    ...(verdict.error === undefined ? {} : { error: verdict.error }),
    ...outputs,
  });
}

/** Stop requests, the run deadline and step deadlines. */
function endConditions(work: Work): void {
  runDeadline(work);
  const ending = work.status.endReason === 'stopped' || work.status.endReason === 'timeout';
  for (const step of work.input.dag.steps) {
    const node = work.nodes.get(step.name) as RunNode;
    if (node.status !== StepStatus.Running) continue;
    if (ending) stopStep(work, step, node);
    else stepDeadline(work, step, node);
  }
  if (work.status.endReason === 'timeout') {
    // A timed-out run cancels what has not started (behaviour-notes 3).
    for (const [name, node] of work.nodes) if (node.status === StepStatus.NotStarted) work.nodes.set(name, withStatus(node, StepStatus.Canceled, { finishedAt: work.now, error: 'run timed out' }));
  }
}

function runDeadline(work: Work): void {
  const { dag, now } = work.input;
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

/** Ending: a Pod is stopped; a step waiting for its next attempt is canceled at once. */
function stopStep(work: Work, step: Step, node: RunNode): void {
  if (step.parallel !== undefined) {
    for (const child of work.input.pods.filter((p) => p.step === step.name && p.attempt === (node.attempt ?? 0) && p.report === undefined && !p.deleting)) work.stop.push({ pod: child.name, graceSeconds: work.input.dag.maxCleanUpTimeSec });
    return;
  }
  const pod = work.podOf(node);
  if (pod === undefined && node.nextAttemptAt !== undefined) work.nodes.set(step.name, withStatus(node, StepStatus.Canceled, { finishedAt: work.now, error: 'stopped before its next attempt' }));
  else if (pod !== undefined && pod.report === undefined && !pod.deleting) work.stop.push({ pod: pod.name, graceSeconds: work.input.dag.maxCleanUpTimeSec });
}

function stepDeadline(work: Work, step: Step, node: RunNode): void {
  const pod = work.podOf(node);
  if (step.timeoutSec <= 0 || pod === undefined || pod.report !== undefined) return;
  const deadline = Date.parse(node.startedAt ?? work.now) + step.timeoutSec * 1000;
  if (work.input.now.getTime() < deadline) {
    work.wake(deadline);
    return;
  }
  if (!pod.deleting) work.stop.push({ pod: pod.name, graceSeconds: work.input.dag.maxCleanUpTimeSec });
  work.nodes.set(step.name, { ...node, error: STEP_TIMEOUT });
}

function running(work: Work): number {
  return [...work.nodes.values()].filter((n) => n.status === StepStatus.Running && n.nextAttemptAt === undefined).length;
}

function capacity(work: Work): number {
  const limits = [work.input.dag.maxActiveSteps, work.input.maxRunningPods].filter((n) => n > 0);
  return limits.length === 0 ? Number.POSITIVE_INFINITY : Math.min(...limits) - running(work);
}

/** Starts what is ready, in definition order, within the limits. */
function schedule(work: Work): void {
  const { dag, now } = work.input;
  propagate(dag.steps, work.nodes, work.now);
  const startAt = Date.parse(work.status.startedAt ?? work.now) + dag.delaySec * 1000;
  if (now.getTime() < startAt) {
    work.wake(startAt);
    return;
  }
  const steps = new Map(dag.steps.map((s) => [s.name, s]));
  let free = Math.min(capacity(work), work.input.podBudget ?? Number.POSITIVE_INFINITY);
  let held = 0;
  for (const step of dag.steps) {
    const turn = scheduleStep(work, step, steps, free);
    if (turn === 'launched') free -= 1;
    if (turn === 'held') held += 1;
  }
  reportHeld(work, held);
  propagate(dag.steps, work.nodes, work.now);
  const stuck = [...work.nodes.values()].some((n) => n.status === StepStatus.NotStarted) && running(work) === 0 && work.launch.length === 0;
  const waiting = [...work.nodes.values()].some((n) => n.nextAttemptAt !== undefined);
  if (stuck && !waiting && free > 0) {
    work.status = { ...work.status, endReason: 'deadlock', error: 'deadlock: steps remain that can never become ready' };
  }
}

/**
 * Steps ready to start that only the operator's Pod caps hold back (not the DAG's own
 * maxActiveSteps) are reported in the status, and the run looks again soon: capacity that
 * other runs free brings it no event of its own.
 */
function reportHeld(work: Work, held: number): void {
  const maxActive = work.input.dag.maxActiveSteps;
  const byOperator = held > 0 && (maxActive <= 0 || running(work) < maxActive);
  const { heldSteps: _previous, ...rest } = work.status;
  work.status = byOperator ? { ...rest, heldSteps: held } : rest;
  if (byOperator) work.wake(work.input.now.getTime() + HELD_RECHECK_MS);
}

const HELD_RECHECK_MS = 1000;

/** One step's turn: it launched, it was ready but no slot was free, or neither. */
function scheduleStep(work: Work, step: Step, steps: ReadonlyMap<string, Step>, free: number): 'launched' | 'held' | 'idle' {
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
  if (step.preconditions.some((c) => work.input.preconditionMet(c) === false)) {
    work.nodes.set(step.name, withStatus(node, StepStatus.Skipped, { finishedAt: work.now }));
    return 'idle';
  }
  if (free <= 0) return 'held';
  work.nodes.set(step.name, launchStep(work, step, node));
  return 'launched';
}

function launchStep(work: Work, step: Step, node: RunNode, handler?: HandlerEvent): RunNode {
  const attempt = node.attempt ?? 0;
  if (step.parallel !== undefined) return observeParallel(work, step, withStatus(node, StepStatus.Running, { startedAt: work.now }));
  const pod = work.input.podName(step.name, attempt);
  if (work.input.routineEvents === true) work.events.push({ reason: 'StepStarted', message: `${step.name}: attempt ${String(attempt)} in Pod ${pod}` });
  work.launch.push({ step, attempt, pod, ...(handler === undefined ? {} : { handler }) });
  const child = step.call === undefined || work.input.subRunId === undefined ? {} : subRunFields(node, work.input.subRunId(step.name, attempt));
  return withStatus(node, StepStatus.Running, { ...(attempt === 0 || node.startedAt === undefined ? { startedAt: work.now } : {}), pod, ...child });
}

/** The child run of this attempt in subRuns; those of earlier attempts move to subRunsRepeated. */
function subRunFields(node: RunNode, dagRunId: string): Pick<RunNode, 'subRuns' | 'subRunsRepeated'> {
  const earlier = [...(node.subRunsRepeated ?? []), ...(node.subRuns ?? [])].filter((r) => r.dagRunId !== dagRunId);
  return { subRuns: [{ dagRunId }], ...(earlier.length === 0 ? {} : { subRunsRepeated: earlier }) };
}

/** When every step is done: the outcome handler, then the exit handler, then the final status. */
function finishIfDone(work: Work): void {
  const nodes = [...work.nodes.values()];
  if (nodes.some((n) => n.status === StepStatus.Running)) return;
  const ending = work.status.endReason !== undefined;
  if (!ending && nodes.some((n) => n.status === StepStatus.NotStarted)) return;
  const outcome = stepsOutcome(nodes, work.status.endReason);
  const sequence = [outcomeHandler(outcome), 'exit' as const].filter((event) => work.input.dag.handlerOn[event] !== undefined);
  for (const event of sequence) {
    const node = work.handlers.get(event);
    const step = work.input.dag.handlerOn[event] as Step;
    if (node === undefined) {
      work.handlers.set(event, launchStep(work, step, notStarted(step.name), event));
      return;
    }
    if (!stepDone(node.status)) return;
  }
  const final = finalOutcome(outcome, [...work.handlers.values()]);
  const firstError = nodes.find((n) => n.status === StepStatus.Failed && n.continued !== true)?.error;
  work.status = {
    ...work.status,
    status: final,
    statusLabel: runStatusLabel(final),
    finishedAt: work.now,
    ...(work.status.error === undefined && firstError !== undefined ? { error: firstError } : {}),
  };
  // A plain success is in the status and its condition; an event (an API write) is kept for
  // the ends someone should look at.
  if (final !== RunStatus.Succeeded || work.input.routineEvents === true) work.events.push({ reason: 'Finished', message: `run ${runStatusLabel(final)}`, warning: final === RunStatus.Failed });
}

