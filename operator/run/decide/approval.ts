/**
 * The engine's part of Dagu 2.x's `approval` steps (docs/decisions/2026-11-29-approval.md): a
 * step whose command succeeded waits (status 7) with no Pod, until a person's answer is in the
 * run's spec (`spec.approvals`, written by the API server) for the iteration it waits in; then
 * it succeeds (approve: the inputs become variables of later steps), is rejected (8: its
 * dependents do not run, the run ends rejected after its failure handler) or is pushed back
 * (its rewind target and everything after it start again, one iteration later, with the
 * inputs). The answer is data, so a decision made again, after a restart too, finds the same
 * thing to do; an answer of an earlier iteration is history. Pure.
 */
import { rewindTarget } from '../../../core/dag/approval.ts';
import type { Step } from '../../../core/dag/index.ts';
import type { DagRunStatus, RunNode } from '../../../core/resources/schemas.ts';
import { RunStatus, StepStatus, runStatusLabel } from '../../../core/resources/status.ts';
import type { ApprovalAnswer } from '../../../core/resources/types.ts';
import { anyNode, notStarted, withStatus, type Work } from './work.ts';

/** The iteration a step's record waits in: push-backs so far. */
export const iterationOf = (node: RunNode): number => node.approvalIteration ?? 0;

/** Holds every approval step whose command just succeeded, then applies the answers that are due. */
export function answerApprovals(work: Work): void {
  for (const step of work.dag.steps) {
    const node = work.nodes.get(step.name) as RunNode;
    if (step.approval === undefined || node.status !== StepStatus.Succeeded || node.approvedAt !== undefined) continue;
    work.nodes.set(step.name, withStatus(node, StepStatus.Waiting));
    work.events.push({ reason: 'WaitingForApproval', message: `${step.name}: waiting for a person to approve` });
  }
  for (const step of work.dag.steps) {
    const node = work.nodes.get(step.name) as RunNode;
    const answer = work.input.approvals?.[step.name];
    if (node.status !== StepStatus.Waiting || answer === undefined || answer.iteration !== iterationOf(node)) continue;
    if (answer.action === 'approve') approve(work, node, answer);
    else if (answer.action === 'reject') reject(work, node, answer);
    else pushBack(work, step, node, answer);
  }
}

function approve(work: Work, node: RunNode, answer: ApprovalAnswer): void {
  const inputs = answer.inputs ?? {};
  // Dagu keeps an approval's inputs as the step's output variables: later steps read them so.
  const outputs = { ...node.outputs, ...inputs };
  work.nodes.set(
    node.name,
    withStatus(node, StepStatus.Succeeded, {
      approvedAt: answer.at,
      ...(answer.by === undefined ? {} : { approvedBy: answer.by }),
      ...(Object.keys(inputs).length === 0 ? {} : { approvalInputs: inputs }),
      ...(Object.keys(outputs).length === 0 ? {} : { outputs }),
    }),
  );
  work.events.push({
    reason: 'Approved',
    message: `${node.name}: approved${answer.by === undefined ? '' : ` by ${answer.by}`}`,
  });
}

function reject(work: Work, node: RunNode, answer: ApprovalAnswer): void {
  const reason = answer.reason ?? '';
  const error = `rejected${answer.by === undefined ? '' : ` by ${answer.by}`}${reason === '' ? '' : `: ${reason}`}`;
  work.nodes.set(
    node.name,
    withStatus(node, StepStatus.Rejected, {
      rejectedAt: answer.at,
      ...(answer.by === undefined ? {} : { rejectedBy: answer.by }),
      ...(reason === '' ? {} : { rejectionReason: reason }),
      error,
    }),
  );
  work.events.push({ reason: 'Rejected', message: `${node.name}: ${error}`, warning: true });
}

/** The rewind target and every step after it, in definition order. */
function rewound(work: Work, target: string): Step[] {
  const names = new Set([target]);
  // A graph may list a step before what it depends on: repeat until nothing is added.
  for (let size = 0; size !== names.size;) {
    size = names.size;
    for (const step of work.dag.steps) if (step.depends.some((d) => names.has(d))) names.add(step.name);
  }
  return work.dag.steps.filter((s) => names.has(s.name));
}

/**
 * Starts the rewind target and what follows it again. Applied only once none of them runs (a
 * branch beside the waiting step may still): the answer waits in the spec until then.
 */
function pushBack(work: Work, step: Step, node: RunNode, answer: ApprovalAnswer): void {
  const target = rewindTarget(step, work.dag.steps) ?? step;
  const steps = rewound(work, target.name);
  const nodes = steps.map((s) => work.nodes.get(s.name) as RunNode);
  if (nodes.some((n) => n.status === StepStatus.Running)) return;
  const allowed = step.approval?.input ?? [];
  const inputs = Object.fromEntries(Object.entries(answer.inputs ?? {}).filter(([name]) => allowed.includes(name)));
  const iteration = iterationOf(node) + 1;
  for (const old of nodes) work.nodes.set(old.name, restarted(old, iteration, inputs, answer));
  work.events.push({
    reason: 'PushedBack',
    message: `${step.name}: pushed back${answer.by === undefined ? '' : ` by ${answer.by}`}; ${target.name} runs again (iteration ${String(iteration)})`,
  });
}

/**
 * A step's record to start again: its attempt number moves on (attempt numbers name Pods, child
 * runs and logs, so an attempt is never reused) and its earlier attempts stay for the trace.
 */
function restarted(old: RunNode, iteration: number, inputs: Record<string, string>, answer: ApprovalAnswer): RunNode {
  const started = old.startedAt !== undefined;
  const earlierRuns = [...(old.subRunsRepeated ?? []), ...(old.subRuns ?? [])];
  return {
    ...notStarted(old.name),
    attempt: (old.attempt ?? 0) + (started ? 1 : 0),
    ...(old.attempts === undefined ? {} : { attempts: old.attempts }),
    ...(old.attemptsDropped === undefined ? {} : { attemptsDropped: old.attemptsDropped }),
    ...(earlierRuns.length === 0 ? {} : { subRunsRepeated: earlierRuns }),
    approvalIteration: iteration,
    ...(Object.keys(inputs).length === 0 ? {} : { pushBackInputs: inputs }),
    ...(answer.by === undefined ? {} : { pushBackBy: answer.by }),
    pushBackAt: answer.at,
  };
}

/** An ending run (stopped, timed out) has no one left to wait for: its waiting steps are canceled. */
export function endWaits(work: Work): void {
  if (work.status.endReason === undefined) return;
  for (const [name, node] of work.nodes)
    if (node.status === StepStatus.Waiting)
      work.nodes.set(
        name,
        withStatus(node, StepStatus.Canceled, { finishedAt: work.now, error: 'canceled while waiting for approval' }),
      );
}

/**
 * The run's own status while it has not ended: waiting (7) when a step waits and nothing else
 * runs or is started now, as Dagu's run is; running (1) otherwise.
 */
export function waitingPhase(work: Work): void {
  const { status } = work;
  if (status.finishedAt !== undefined || status.endReason !== undefined) return;
  const waits =
    anyNode(work.nodes, (n) => n.status === StepStatus.Waiting) &&
    work.launch.length === 0 &&
    !anyNode(work.nodes, (n) => n.status === StepStatus.Running) &&
    // The wait handler runs because the run waits: it does not make it running.
    ![...work.handlers].some(([event, n]) => event !== 'wait' && n.status === StepStatus.Running);
  const next = waits ? RunStatus.Waiting : RunStatus.Running;
  if (status.status !== next) work.status = { ...status, status: next, statusLabel: runStatusLabel(next) };
}

/**
 * What a step started again by a push-back is given (Dagu's names): each input the approval step
 * takes, `DAG_PUSHBACK_ITERATION`, and `DAG_PUSHBACK`, the push-back as JSON.
 */
export function pushBackVars(step: Step, status: DagRunStatus): { name: string; value: string }[] {
  const node = status.nodes?.find((n) => n.name === step.name);
  if (node?.approvalIteration === undefined) return [];
  const inputs = node.pushBackInputs ?? {};
  const payload = {
    iteration: node.approvalIteration,
    ...(node.pushBackBy === undefined ? {} : { by: node.pushBackBy }),
    ...(node.pushBackAt === undefined ? {} : { at: node.pushBackAt }),
    ...(Object.keys(inputs).length === 0 ? {} : { inputs }),
  };
  return [
    ...Object.entries(inputs).map(([name, value]) => ({ name, value })),
    { name: 'DAG_PUSHBACK_ITERATION', value: String(node.approvalIteration) },
    { name: 'DAG_PUSHBACK', value: JSON.stringify(payload) },
  ];
}
