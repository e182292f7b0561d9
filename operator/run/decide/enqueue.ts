/**
 * Dagu 2.x's `dag.enqueue` step: the operator completes it itself by creating a queued root run
 * of the called DAG and does not wait for that run (Dagu's internal/runtime/builtin/dag/
 * enqueue.go). A step Pod never gets the right to create runs. The run's name and id are derived
 * from the parent run, the step and the attempt, so a repeated create (an operator that
 * restarted before it wrote the step's end) finds the same run: "already exists", never a
 * second one. Pure; docs/decisions/2026-11-29-dagu-2x-enqueue.md.
 */
import type { Step } from '../../../core/dag/index.ts';
import { LABELS } from '../../../core/resources/constants.ts';
import { dagResourceName, dagRunResourceName, labelValue } from '../../../core/resources/names.ts';
import type { DagRunStatus, RunNode } from '../../../core/resources/schemas.ts';
import { StepStatus } from '../../../core/resources/status.ts';
import type { DagRunResource } from '../../../core/resources/types.ts';
import { attemptEnded } from './attempt-records.ts';
import { subRunId } from './children.ts';
import type { Launch } from './engine.ts';
import { HANDLER_KEYS, withStatus } from './work.ts';

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

/** The queued root run an attempt of an enqueue step creates. */
export function enqueuedRun(launch: Launch, input: EnqueueInput): DagRunResource {
  const dagName = launch.step.call ?? '';
  const stepKey = launch.item === undefined ? launch.step.name : `${launch.step.name}[${String(launch.item.index)}]`;
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
