/**
 * The admission loop: the one place that lets queued runs start. Keyed by queue
 * (namespace/queue name) on a work queue, so one queue is decided at a time; triggered by
 * run and DAGQueue events and a periodic sweep. Only the leader runs it.
 */
import type { Informer } from '../../core/kube/informer.ts';
import { WorkQueue } from '../../core/kube/queue.ts';
import { type Clock } from '../../core/kube/time.ts';
import type { ResourceClient } from '../../core/kube/client.ts';
import { ignoreConflict, ignoreNotFound } from '../../core/kube/errors.ts';
import { errorMessage, type Logger } from '../../core/log.ts';
import { RunStatus, runStatusLabel } from '../../core/resources/status.ts';
import type { DagQueueResource, DagRunResource } from '../../core/resources/types.ts';
import { queueName } from '../../core/resources/queue.ts';
import { ACTIVATION_MS, dagCapacity, decideQueue } from '../run/decide/admission.ts';

export interface AdmissionDeps {
  readonly runClient: ResourceClient<DagRunResource>;
  readonly runs: Informer<DagRunResource>;
  readonly queues: Informer<DagQueueResource>;
  readonly clock: Clock;
  readonly log: Logger;
}

/** How often every queue is looked at even without events (timeouts, missed events). */
export const SWEEP_MS = 5000;

export class AdmissionLoop {
  private readonly deps: AdmissionDeps;
  private readonly queue: WorkQueue;
  private sweeper: NodeJS.Timeout | undefined;
  /** When this loop started deciding (its operator took the lead); undefined before. */
  private leadingSince: Date | undefined;

  constructor(deps: AdmissionDeps) {
    this.deps = deps;
    this.queue = new WorkQueue({
      concurrency: 4,
      worker: (key) => this.decide(key),
      onError: (key, error) => {
        deps.log.error({ queue: key, err: errorMessage(error) }, 'admission decision failed');
      },
    });
  }

  /** A run changed: its queue may have room now (it ended) or a new member (it was queued). */
  onRun(run: DagRunResource): void {
    if (run.spec.parent !== undefined) return;
    this.queue.add(`${run.metadata?.namespace ?? ''}/${queueName(run)}`);
  }

  onQueue(queue: DagQueueResource): void {
    this.queue.add(`${queue.metadata?.namespace ?? ''}/${queue.metadata?.name ?? ''}`);
  }

  start(): void {
    this.leadingSince = this.deps.clock.now();
    const sweep = (): void => {
      const keys = new Set(
        this.deps.runs
          .list()
          .filter((r) => r.spec.enqueue === true && r.spec.parent === undefined && r.status?.finishedAt === undefined)
          .map((r) => `${r.metadata?.namespace ?? ''}/${queueName(r)}`),
      );
      for (const key of keys) this.queue.add(key);
    };
    sweep();
    this.sweeper = setInterval(sweep, SWEEP_MS);
    this.sweeper.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.sweeper);
    await this.queue.shutdown();
  }

  private async decide(key: string): Promise<{ requeueAfterMs: number } | undefined> {
    // Events seen while the informers sync come before start(), whose sweep decides every queue.
    if (this.leadingSince === undefined) return undefined;
    const [namespace = '', name = ''] = key.split('/');
    const members = this.deps.runs
      .list(namespace)
      .filter((r) => queueName(r) === name && r.status?.finishedAt === undefined);
    const custom = this.deps.queues.get(namespace, name);
    const capacity = custom?.spec.maxConcurrency ?? dagCapacity(members);
    const now = this.deps.clock.now();
    const decision = decideQueue(members, capacity, now, this.leadingSince);
    for (const run of decision.expire) await this.giveUp(run, now);
    // Several slots freed at once are handed off side by side, not one write after another.
    await Promise.all(decision.admit.map((run) => this.letOut(run, now)));
    // Runs let out are checked again once their activation time is up.
    return members.some((r) => r.status?.handedOffAt !== undefined) || decision.admit.length > 0
      ? { requeueAfterMs: ACTIVATION_MS + 100 }
      : undefined;
  }

  /** The hand-off: status without a number, so the run reconciler starts the run. */
  private async letOut(run: DagRunResource, now: Date): Promise<void> {
    const status = { queuedAt: run.status?.queuedAt ?? now.toISOString(), handedOffAt: now.toISOString() };
    // The written run is assumed into the cache, whose handlers put it at the front of the
    // run work queue (a run let out has 10 s to start).
    await this.write(run, status);
  }

  private async giveUp(run: DagRunResource, now: Date): Promise<void> {
    const error = `not started within ${String(ACTIVATION_MS / 1000)} s of leaving its queue`;
    await this.write(run, {
      ...run.status,
      status: RunStatus.Canceled,
      statusLabel: runStatusLabel(RunStatus.Canceled),
      finishedAt: now.toISOString(),
      error,
    });
    this.deps.log.warn(
      { run: `${run.metadata?.namespace ?? ''}/${run.metadata?.name ?? ''}`, reason: error },
      'admission gave up on a run',
    );
  }

  /**
   * A status write guarded by the version decided on: a run that changed meanwhile is decided
   * again (undefined). The written run is shown by the cache at once, so the next decision
   * counts it without waiting for its watch event.
   */
  private async write(run: DagRunResource, status: Record<string, unknown>): Promise<DagRunResource | undefined> {
    const written = await ignoreNotFound(ignoreConflict(this.deps.runClient.replaceStatus({ ...run, status })));
    if (written !== undefined) this.deps.runs.assume(written, run.metadata?.resourceVersion);
    return written;
  }
}
