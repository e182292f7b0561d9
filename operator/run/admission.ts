/**
 * Queued runs (created with `spec.enqueue`, the API's enqueue): a run waits with status 5
 * until its queue has room, oldest first. A queue is a DAGQueue resource (capacity
 * maxConcurrency) when one has the queue's name, else the DAG's own (capacity maxActiveRuns).
 * Sub runs never queue. This is the simple form: each queued run checks for itself, so it
 * polls; one admission loop for all queues replaces it with the scheduling work (issue 6).
 */
import type { CustomObjectsApi } from '@kubernetes/client-node';
import type { Informer } from '../../core/kube/informer.ts';
import { statusCode } from '../../core/kube/time.ts';
import { GROUP, VERSION } from '../../core/resources/constants.ts';
import { queueName } from '../../core/resources/queue.ts';
import { RunStatus } from '../../core/resources/status.ts';
import type { DagQueueResource, DagRunResource } from '../../core/resources/types.ts';

/** How often a queued run looks again for room. */
export const QUEUE_POLL_MS = 1000;

export { queueName };

/** Holds a place in its queue: waiting, or let through and not started yet. */
const waiting = (run: DagRunResource): boolean => run.status?.status === RunStatus.Queued;
const letThrough = (run: DagRunResource): boolean => run.spec.enqueue === true && run.status !== undefined && run.status.status === undefined && run.status.queuedAt !== undefined;
/** A run started directly (not enqueued) that the operator has not picked up yet holds a slot too. */
const startingNow = (run: DagRunResource): boolean => run.spec.enqueue !== true && run.status === undefined;
const runningNow = (run: DagRunResource): boolean => run.status?.status === RunStatus.Running || letThrough(run) || startingNow(run);

/**
 * Whether a waiting run may start now: it is among the oldest waiting runs of its queue that
 * fit into the room left beside the running ones. Pure.
 */
export function admissible(run: DagRunResource, all: readonly DagRunResource[], capacity: number, extraRunning = 0): boolean {
  const queue = queueName(run);
  const members = all.filter((r) => r.spec.parent === undefined && queueName(r) === queue);
  const room = Math.max(1, capacity) - members.filter(runningNow).length - extraRunning;
  if (room <= 0) return false;
  const order = (r: DagRunResource): string => `${r.status?.queuedAt ?? ''}\u0000${r.metadata?.name ?? ''}`;
  const line = members.filter(waiting).sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
  return line.slice(0, room).includes(run);
}

export type QueueStep = { kind: 'proceed' } | { kind: 'queue'; queuedAt: string } | { kind: 'wait' } | { kind: 'admit'; queuedAt: string };

export class Admission {
  private readonly runs: Informer<DagRunResource>;
  private readonly custom: CustomObjectsApi;
  /** Runs let through whose write the cache has not shown yet: they count as running. */
  private readonly admitted = new Set<string>();
  private readonly queues = new Map<string, { capacity: number | undefined; at: number }>();

  constructor(runs: Informer<DagRunResource>, custom: CustomObjectsApi) {
    this.runs = runs;
    this.custom = custom;
  }

  /** What a run's place in the queue asks of the reconciler now. */
  async step(run: DagRunResource, maxActiveRuns: number, now: Date): Promise<QueueStep> {
    const name = run.metadata?.name ?? '';
    if (!waiting(run)) this.admitted.delete(name);
    if (run.spec.enqueue !== true || run.spec.parent !== undefined) return { kind: 'proceed' };
    if (run.status === undefined) return { kind: 'queue', queuedAt: now.toISOString() };
    if (!waiting(run)) return { kind: 'proceed' };
    const namespace = run.metadata?.namespace ?? '';
    const capacity = (await this.customCapacity(namespace, queueName(run), now)) ?? (maxActiveRuns < 0 ? Number.MAX_SAFE_INTEGER : maxActiveRuns);
    const all = this.runs.list(namespace);
    const pending = all.filter((r) => this.admitted.has(r.metadata?.name ?? '') && waiting(r) && queueName(r) === queueName(run)).length;
    if (!admissible(run, all.filter((r) => !this.admitted.has(r.metadata?.name ?? '')), capacity, pending)) return { kind: 'wait' };
    this.admitted.add(name);
    return { kind: 'admit', queuedAt: run.status.queuedAt ?? now.toISOString() };
  }

  /** A write of the admission failed: the run holds no place among the running. */
  forget(run: DagRunResource): void {
    this.admitted.delete(run.metadata?.name ?? '');
  }

  /** A DAGQueue's maxConcurrency, read at most every few seconds per queue. */
  private async customCapacity(namespace: string, queue: string, now: Date): Promise<number | undefined> {
    const key = `${namespace}/${queue}`;
    const known = this.queues.get(key);
    if (known !== undefined && now.getTime() - known.at < 5000) return known.capacity;
    let capacity: number | undefined;
    try {
      const found = (await this.custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: 'dagqueues', name: queue })) as DagQueueResource;
      capacity = found.spec.maxConcurrency;
    } catch (error) {
      if (statusCode(error) !== 404) throw error;
    }
    this.queues.set(key, { capacity, at: now.getTime() });
    return capacity;
  }
}
