/**
 * Queued runs (created with `spec.enqueue`: the API's enqueue, scheduled starts that found
 * their DAG full). The run reconciler only puts a new one in its queue (status 5, queuedAt);
 * one admission loop owns the decision to let runs out of a queue, one queue at a time, so
 * concurrency limits hold under bursts. A run let out gets `handedOffAt` and no status number;
 * the run reconciler then starts it. One not running 10 s after its hand-off is canceled
 * (behaviour-notes 6). A queue is a DAGQueue (capacity maxConcurrency) when one has its name,
 * else the DAG's own (capacity maxActiveRuns; below 1 means 1). Sub runs never queue.
 */
import { declaredValue } from '../../../core/resources/frozen.ts';
import type { DagRunStatus } from '../../../core/resources/schemas.ts';
import { RunStatus, runActive, runStatusLabel } from '../../../core/resources/status.ts';
import type { DagRunResource } from '../../../core/resources/types.ts';

/** How long a run let out of its queue may take to start before it is given up. */
export const ACTIVATION_MS = 10_000;

const waiting = (run: DagRunResource): boolean => run.status?.status === RunStatus.Queued;
/** Let out of its queue, not started yet. */
export const handedOff = (run: DagRunResource): boolean =>
  run.spec.enqueue === true &&
  run.status !== undefined &&
  run.status.status === undefined &&
  run.status.handedOffAt !== undefined;
/** A run started directly (not enqueued) that the operator has not picked up yet holds a slot too. */
const startingNow = (run: DagRunResource): boolean => run.spec.enqueue !== true && run.status === undefined;
const runningNow = (run: DagRunResource): boolean =>
  runActive(run.status?.status) || handedOff(run) || startingNow(run);

/** What the run reconciler does with a run and its queue. */
export function queuePlace(run: DagRunResource): 'proceed' | 'enter' | 'wait' {
  if (run.spec.enqueue !== true || run.spec.parent !== undefined) return 'proceed';
  if (run.status === undefined) return 'enter';
  return waiting(run) ? 'wait' : 'proceed';
}

/** The status of a run entering its queue (queuePlace `enter`): the admission loop takes it from there. */
export function queueEntry(now: Date): DagRunStatus {
  return { status: RunStatus.Queued, statusLabel: runStatusLabel(RunStatus.Queued), queuedAt: now.toISOString() };
}

/** A DAG-based queue's capacity, from the DAG definition frozen into its newest run. */
export function dagCapacity(members: readonly DagRunResource[]): number {
  let newest: DagRunResource | undefined;
  for (const run of members) if (newest === undefined || order(run) > order(newest)) newest = run;
  const max = newest === undefined ? undefined : declaredValue(newest, 'maxActiveRuns');
  if (typeof max !== 'number') return 1;
  return max < 0 ? Number.MAX_SAFE_INTEGER : Math.max(1, max);
}

const orders = new WeakMap<DagRunResource, string>();

/** FIFO position, built once per cached object: a queue of 1,000 runs is sorted on every decision. */
function order(run: DagRunResource): string {
  let key = orders.get(run);
  if (key === undefined) {
    key = `${run.status?.queuedAt ?? ''}\u0000${String(new Date(run.metadata?.creationTimestamp ?? 0).getTime()).padStart(15, '0')}\u0000${run.metadata?.name ?? ''}`;
    orders.set(run, key);
  }
  return key;
}

export interface QueueDecision {
  /** Waiting runs to let out now, oldest first. */
  readonly admit: DagRunResource[];
  /** Runs let out that did not start within ACTIVATION_MS. */
  readonly expire: DagRunResource[];
}

/**
 * One queue's decision: as many of its oldest waiting runs as fit beside the running ones.
 * Nothing is pending between two decisions of a queue (they never overlap, and every hand-off
 * written is shown by the cache at once through Informer.assume), so none is counted. Pure.
 * A hand-off's 10 s count from `leadingSince` at the earliest: runs let out by a leader that
 * died before starting them are started by its successor, not discarded for the failover.
 */
export function decideQueue(
  members: readonly DagRunResource[],
  capacity: number,
  now: Date,
  leadingSince = new Date(0),
): QueueDecision {
  const roots = members.filter((r) => r.spec.parent === undefined);
  const expire = roots.filter(
    (r) =>
      handedOff(r) &&
      now.getTime() - Math.max(Date.parse(r.status?.handedOffAt ?? ''), leadingSince.getTime()) > ACTIVATION_MS,
  );
  const line = roots.filter(waiting).sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
  const running = roots.filter((r) => runningNow(r) && !expire.includes(r)).length;
  const room = Math.max(0, Math.max(1, capacity) - running);
  return { admit: line.slice(0, room), expire };
}
