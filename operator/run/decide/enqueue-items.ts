/**
 * A Dagu 2.x `dag.enqueue` step over `parallel` items: one queued root run per item, up to 1000.
 * The runs are created in bounded batches, one batch per reconcile, so that a big step never
 * holds the operator's work queue for long: the step's `subRuns` names the runs created so far
 * (in item order), each reconcile creates the next batch of the missing ones and asks to be
 * reconciled again at once, and the write after the last batch ends the step succeeded. The ids
 * come from the attempt and the item's index, so a batch repeated after a crash finds its runs
 * ("already exists" is success): none lost, none twice. Pure;
 * docs/decisions/2026-11-29-dagu-2x-enqueue.md.
 */
import { MAX_PARALLEL_ITEMS, type HandlerEvent, type Step } from '../../../core/dag/index.ts';
import { stepPodName } from '../../../core/resources/names.ts';
import type { RunNode } from '../../../core/resources/schemas.ts';
import { StepStatus } from '../../../core/resources/status.ts';
import { attemptBegun, attemptEnded } from './attempt-records.ts';
import { parallelItems } from './children.ts';
import { isEnqueue, itemKey, itemRunId } from './enqueue.ts';
import { ENQUEUE_BATCH } from './enqueue-batch.ts';
import { variables } from './variables.ts';
import { withStatus, type Work } from './work.ts';

export const enqueuesItems = (step: Step): boolean => step.parallel !== undefined && isEnqueue(step);

/** The next batch: the indexes of the first `size` items whose run is not among those enqueued, and whether it is the last. */
export function nextBatch(
  ids: readonly string[],
  enqueued: readonly string[],
  size: number,
): { readonly batch: readonly number[]; readonly last: boolean } {
  const done = new Set(enqueued);
  const missing = ids.flatMap((id, index) => (done.has(id) ? [] : [index]));
  const batch = missing.slice(0, Math.max(1, size));
  return { batch, last: batch.length === missing.length };
}

/**
 * An attempt of the step begins: no items, or more than a parallel step may have, fail it
 * before any run is queued; otherwise it runs with no run named yet and the first batch goes.
 * Runs of earlier attempts are not listed: a retry lists its own.
 */
export function launchEnqueueItems(work: Work, step: Step, node: RunNode, handler?: HandlerEvent): RunNode {
  const attempt = node.attempt ?? 0;
  const items = itemsOf(work, step);
  const { subRuns: _runs, subRunsRepeated: _earlier, ...rest } = node;
  const begun = attemptBegun(
    withStatus(rest, StepStatus.Running, {
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
  return launchBatch(work, step, begun, items, handler);
}

/**
 * The running enqueue steps and handlers go on with their next batch. A stopping run cancels its
 * steps instead (deadlines.ts, enqueueStopped); handlers run on, as a stop does not cancel them.
 */
export function continueEnqueues(work: Work): void {
  for (const [name, node] of work.nodes) {
    const step = work.steps.get(name);
    if (step === undefined || !enqueuesItems(step) || node.status !== StepStatus.Running || work.ending) continue;
    work.nodes.set(name, launchBatch(work, step, node, itemsOf(work, step)));
  }
  for (const [event, node] of work.handlers) {
    const step = work.dag.handlerOn[event];
    if (step === undefined || !enqueuesItems(step) || node.status !== StepStatus.Running) continue;
    work.handlers.set(event, launchBatch(work, step, node, itemsOf(work, step), event));
  }
}

/** A stop while the batches go: the step is canceled at once; the runs queued so far stay queued (they are root runs). */
export function enqueueStopped(work: Work, node: RunNode): RunNode {
  const error = `stopped after ${String(node.subRuns?.length ?? 0)} of its runs were enqueued`;
  const canceled = withStatus(node, StepStatus.Canceled, { finishedAt: work.now, error });
  return attemptEnded(canceled, { attempt: node.attempt ?? 0, at: work.now, status: StepStatus.Canceled });
}

function itemsOf(work: Work, step: Step): unknown[] {
  const { definition } = work.input;
  return parallelItems(step, variables(definition, { nodes: [...work.nodes.values()] }, step, work.dag.steps));
}

/** Launches the next batch of missing runs; with none missing (a write that ended nothing) the step ends now. */
function launchBatch(
  work: Work,
  step: Step,
  node: RunNode,
  items: readonly unknown[],
  handler?: HandlerEvent,
): RunNode {
  const attempt = node.attempt ?? 0;
  const { run } = work.input;
  const ids = items.map((_, index) => itemRunId(run.dagRunId, step, index, attempt));
  const enqueued = (node.subRuns ?? []).map((r) => r.dagRunId);
  const { batch, last } = nextBatch(ids, enqueued, work.input.enqueueBatch ?? ENQUEUE_BATCH);
  if (batch.length === 0) {
    const done = withStatus(node, StepStatus.Succeeded, { finishedAt: work.now });
    return attemptEnded(done, { attempt, at: work.now, status: StepStatus.Succeeded });
  }
  for (const index of batch) {
    const pod = stepPodName(run.name, itemKey(step, index), attempt);
    work.launch.push({
      step,
      attempt,
      pod,
      item: { index, value: items[index] },
      ...(last ? { endsStep: true } : {}),
      ...(handler === undefined ? {} : { handler }),
    });
  }
  // The write after this batch's creates brings the next reconcile too; this one does not wait for it.
  if (!last) work.wake(work.input.now.getTime());
  return node;
}
