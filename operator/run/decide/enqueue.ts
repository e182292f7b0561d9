/**
 * Dagu 2.x's `dag.enqueue` step: the operator completes it itself by creating a queued root run
 * of the called DAG and does not wait for that run (Dagu's internal/runtime/builtin/dag/
 * enqueue.go). A step Pod never gets the right to create runs. The run's name and id are derived
 * from the parent run, the step and the attempt, so a repeated create (an operator that
 * restarted before it wrote the step's end) finds the same run: "already exists", never a
 * second one. Pure; docs/decisions/2026-11-29-dagu-2x-enqueue.md.
 */
import { MAX_PARALLEL_ITEMS, type HandlerEvent, type Step } from '../../../core/dag/index.ts';
import { LABELS } from '../../../core/resources/constants.ts';
import { dagResourceName, dagRunResourceName, labelValue, stepPodName } from '../../../core/resources/names.ts';
import type { DagRunStatus, RunNode } from '../../../core/resources/schemas.ts';
import { StepStatus } from '../../../core/resources/status.ts';
import type { DagRunResource } from '../../../core/resources/types.ts';
import { attemptBegun, attemptEnded } from './attempt-records.ts';
import { parallelItems, subRunId } from './children.ts';
import { variables } from './variables.ts';
import { HANDLER_KEYS, withStatus, type Launch, type Work } from './work.ts';

/** What the queued run is made from: the parent run's identity, and the step's params already expanded. */
export interface EnqueueInput {
  readonly namespace: string;
  readonly parentRunId: string;
  /** The local DAG of the file the step calls, when it calls one. */
  readonly localDocument?: Record<string, unknown>;
  readonly params?: string;
}

export function isEnqueue(step: Step): boolean {
  return step.enqueue !== undefined && step.call !== undefined;
}

/** The step key of an item's run: the step's name and the item's index, as a parallel call's child has. */
const itemKey = (step: Step, index: number): string => `${step.name}[${String(index)}]`;

/**
 * An attempt of an enqueue step with `parallel`: one queued run per item, all launched at once
 * (Dagu's max_concurrent bounds how many enqueue calls run together, not the runs, which the
 * queue admits), and the step's subRuns naming each. The step ends when every create succeeded
 * (withEnqueued); the run ids come from the attempt and the item's index, so a repeat after a
 * restart finds the runs created before. No items, or more than a parallel step may have, fail
 * the step before any run is queued.
 */
export function launchEnqueueItems(work: Work, step: Step, node: RunNode, handler?: HandlerEvent): RunNode {
  const attempt = node.attempt ?? 0;
  const { definition, run } = work.input;
  const vars = variables(definition, { nodes: [...work.nodes.values()] }, step, work.dag.steps);
  const items = parallelItems(step, vars);
  const begun = attemptBegun(
    withStatus(node, StepStatus.Running, {
      ...(attempt === 0 || node.startedAt === undefined ? { startedAt: work.now } : {}),
    }),
    work.now,
  );
  const refusal =
    items.length === 0
      ? 'no sub DAG runs to enqueue'
      : items.length > MAX_PARALLEL_ITEMS
        ? `parallel has ${String(items.length)} items; at most ${String(MAX_PARALLEL_ITEMS)} runs are enqueued by one step`
        : undefined;
  if (refusal !== undefined) {
    work.events.push({ reason: 'StepFailed', message: `${step.name}: failed (${refusal})`, warning: true });
    const failed = withStatus(begun, StepStatus.Failed, { finishedAt: work.now, error: refusal });
    return attemptEnded(failed, { attempt, at: work.now, status: StepStatus.Failed });
  }
  items.forEach((value, index) => {
    const pod = stepPodName(run.name, itemKey(step, index), attempt);
    work.launch.push({ step, attempt, pod, item: { index, value }, ...(handler === undefined ? {} : { handler }) });
  });
  const { subRunsRepeated: _earlier, ...rest } = begun;
  return {
    ...rest,
    subRuns: items.map((_, index) => ({ dagRunId: subRunId(run.dagRunId, itemKey(step, index), attempt) })),
  };
}

/** The queued root run an attempt of an enqueue step creates. */
export function enqueuedRun(launch: Launch, input: EnqueueInput): DagRunResource {
  const dagName = launch.step.call ?? '';
  const stepKey = launch.item === undefined ? launch.step.name : itemKey(launch.step, launch.item.index);
  const dagRunId = subRunId(input.parentRunId, stepKey, launch.attempt);
  const queue = launch.step.enqueue?.queue;
  return {
    metadata: {
      name: dagRunResourceName(dagName, dagRunId),
      namespace: input.namespace,
      labels: { [LABELS.dag]: labelValue(dagName), [LABELS.runId]: labelValue(dagRunId) },
    },
    spec: {
      ...(input.localDocument === undefined
        ? { dagRef: { name: dagResourceName(dagName) } }
        : { definition: input.localDocument }),
      dagName,
      dagRunId,
      ...(input.params === undefined ? {} : { params: input.params }),
      ...(queue === undefined ? {} : { queue }),
      enqueue: true,
      trigger: 'api',
    },
  };
}

/** The status with each enqueue attempt whose run was created (or found) succeeded. */
export function withEnqueued(status: DagRunStatus, launches: readonly Launch[], now: Date): DagRunStatus {
  let next = status;
  for (const launch of launches) {
    const done = (node: RunNode | undefined): RunNode | undefined =>
      node === undefined ? undefined : enqueuedNode(node, launch, now.toISOString());
    next =
      launch.handler === undefined
        ? { ...next, nodes: (next.nodes ?? []).map((n) => (n.name === launch.step.name ? (done(n) as RunNode) : n)) }
        : { ...next, [HANDLER_KEYS[launch.handler]]: done(next[HANDLER_KEYS[launch.handler]]) };
  }
  return next;
}

function enqueuedNode(node: RunNode, launch: Launch, now: string): RunNode {
  if (node.status !== StepStatus.Running || (node.attempt ?? 0) !== launch.attempt) return node;
  const done = withStatus(node, StepStatus.Succeeded, { finishedAt: now });
  return attemptEnded(done, { attempt: launch.attempt, at: now, status: StepStatus.Succeeded });
}
