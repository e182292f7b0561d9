/**
 * Dagu 2.x's `dag.enqueue` step: the operator completes it itself by creating a queued root run
 * of the called DAG and does not wait for that run (Dagu's internal/runtime/builtin/dag/
 * enqueue.go). A step Pod never gets the right to create runs. The run's name and id are derived
 * from the parent run, the step and the attempt, so a repeated create (an operator that
 * restarted before it wrote the step's end) finds the same run: "already exists", never a
 * second one. Over `parallel` items, enqueue-items.ts. Pure; docs/decisions/2026-11-29-dagu-2x-enqueue.md.
 */
import type { Step } from '../../../core/dag/index.ts';
import { LABELS } from '../../../core/resources/constants.ts';
import { dagResourceName, dagRunResourceName, labelValue } from '../../../core/resources/names.ts';
import type { DagRunStatus, RunNode } from '../../../core/resources/schemas.ts';
import { StepStatus } from '../../../core/resources/status.ts';
import type { DagRunResource } from '../../../core/resources/types.ts';
import { attemptEnded } from './attempt-records.ts';
import { subRunId } from './children.ts';
import { HANDLER_KEYS, withStatus, type Launch } from './work.ts';

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
export const itemKey = (step: Step, index: number): string => `${step.name}[${String(index)}]`;

/** The run id of an item's run in one attempt of the step. */
export const itemRunId = (parentRunId: string, step: Step, index: number, attempt: number): string =>
  subRunId(parentRunId, itemKey(step, index), attempt);

/** The queued root run an attempt of an enqueue step creates. */
export function enqueuedRun(launch: Launch, input: EnqueueInput): DagRunResource {
  const dagName = launch.step.call ?? '';
  const dagRunId =
    launch.item === undefined
      ? subRunId(input.parentRunId, launch.step.name, launch.attempt)
      : itemRunId(input.parentRunId, launch.step, launch.item.index, launch.attempt);
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

/**
 * The status after the creates of a decision's enqueue launches (those the API did not refuse):
 * each item's run joins its step's subRuns, then the step ends succeeded with its one run, or
 * with the last batch of its items' runs (enqueue-items.ts).
 */
export function withEnqueued(
  status: DagRunStatus,
  launches: readonly Launch[],
  now: Date,
  parentRunId: string,
): DagRunStatus {
  const recorded = launches.reduce(
    (next, launch) => onNode(next, launch, (n) => withItemRun(n, launch, parentRunId)),
    status,
  );
  return launches.reduce((next, launch) => onNode(next, launch, (n) => ended(n, launch, now.toISOString())), recorded);
}

/** The status with the node of the launch's step (or handler) changed, when it runs this launch's attempt. */
function onNode(status: DagRunStatus, launch: Launch, change: (node: RunNode) => RunNode): DagRunStatus {
  const apply = (node: RunNode): RunNode =>
    node.status !== StepStatus.Running || (node.attempt ?? 0) !== launch.attempt ? node : change(node);
  if (launch.handler === undefined)
    return { ...status, nodes: (status.nodes ?? []).map((n) => (n.name === launch.step.name ? apply(n) : n)) };
  const key = HANDLER_KEYS[launch.handler];
  const node = status[key];
  return node === undefined ? status : { ...status, [key]: apply(node) };
}

function withItemRun(node: RunNode, launch: Launch, parentRunId: string): RunNode {
  if (launch.item === undefined) return node;
  const dagRunId = itemRunId(parentRunId, launch.step, launch.item.index, launch.attempt);
  const runs = node.subRuns ?? [];
  return runs.some((r) => r.dagRunId === dagRunId) ? node : { ...node, subRuns: [...runs, { dagRunId }] };
}

function ended(node: RunNode, launch: Launch, now: string): RunNode {
  if (launch.item !== undefined && launch.endsStep !== true) return node;
  const done = withStatus(node, StepStatus.Succeeded, { finishedAt: now });
  return attemptEnded(done, { attempt: launch.attempt, at: now, status: StepStatus.Succeeded });
}
