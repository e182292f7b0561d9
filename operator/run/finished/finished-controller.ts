/**
 * The finished-run controller, keyed by `namespace/name` on a work queue of its own: what a
 * run is owed after its end (its container Pod removed, its trace exported, its mails sent),
 * apart from the run controller, so that a slow or failing export never holds up runs that
 * are still running. Each part runs even when another throws (independent-parts.ts); the
 * failures are thrown together, and the queue retries the run with backoff. Every part is
 * level-triggered from the run and the cached Pods, so repeating them is harmless and an
 * operator that dies between two writes finishes the work after its restart.
 */
import type { Informer } from '../../../core/kube/informer.ts';
import type { WorkResult } from '../../../core/kube/queue.ts';
import type { DagRetryPolicy } from '../../../core/dag/index.ts';
import { ANNOTATIONS } from '../../../core/resources/constants.ts';
import { frozenFacts } from '../../../core/resources/frozen.ts';
import { RunStatus } from '../../../core/resources/status.ts';
import type { DagResource, DagRunResource } from '../../../core/resources/types.ts';
import type { NotifyReconciler } from '../../notify/reconciler.ts';
import type { TelemetryReconciler } from '../../telemetry/reconciler.ts';
import { isFinished } from '../decide/observed.ts';
import { retryRequest } from '../decide/retry-status.ts';
import type { DefinitionCache } from '../shared/loaded-definitions.ts';
import type { RunSegments } from '../shared/segments.ts';
import type { AutoRetryReconciler } from './auto-retry.ts';
import type { ContainerCleanup } from './container-cleanup.ts';
import { IndependentParts } from './independent-parts.ts';

export interface FinishedRunDeps {
  readonly runs: Informer<DagRunResource>;
  readonly definitions: DefinitionCache;
  readonly segments: RunSegments;
  /** A finished run's container Pod. */
  readonly containers: ContainerCleanup;
  /** A finished run's trace export (otel). */
  readonly telemetry: TelemetryReconciler;
  /** Mails about the run (mailOn) and its failed steps (mailOnError). */
  readonly notify: NotifyReconciler;
  /** The DAG-level retryPolicy's retries of failed runs (Dagu 2.x), and the DAGs they ask about. */
  readonly autoRetry: AutoRetryReconciler;
  readonly dags: Informer<DagResource>;
}

export class FinishedRunController {
  private readonly deps: FinishedRunDeps;

  constructor(deps: FinishedRunDeps) {
    this.deps = deps;
  }

  async reconcile(key: string): Promise<WorkResult | undefined> {
    const { deps } = this;
    const [namespace = '', name = ''] = key.split('/');
    const run = deps.runs.get(namespace, name);
    if (run === undefined || !isFinished(run)) return undefined;
    // A retry the run controller is about to start makes the run unfinished: its trace waits for the new end.
    if (retryRequest(run).kind !== 'none') return undefined;
    const retry = await this.retryByPolicy(run);
    // Retried: the run runs again, and what its end is owed waits for the new end.
    if (retry === 'retried') return undefined;
    const after = await this.afterEnd(key, run);
    const waits = [retry?.requeueAfterMs, after?.requeueAfterMs].filter((ms) => ms !== undefined);
    return waits.length === 0 ? undefined : { requeueAfterMs: Math.min(...waits) };
  }

  /**
   * A failed run of a DAG with a retryPolicy: retried now, or looked at again when its retry is
   * due. Runs whose facts say they have no policy cost no read of their definition.
   */
  private async retryByPolicy(run: DagRunResource): Promise<WorkResult | 'retried' | undefined> {
    const policy = await this.retryPolicyOf(run);
    if (policy === undefined) return undefined;
    const dagName = run.spec.dagRef?.name;
    const dag = dagName === undefined ? undefined : this.deps.dags.get(run.metadata?.namespace, dagName);
    const suspended = dag?.metadata?.annotations?.[ANNOTATIONS.suspended] === 'true';
    const decision = await this.deps.autoRetry.reconcile(run, policy, suspended);
    if (decision.kind === 'wait') return { requeueAfterMs: decision.untilMs };
    return decision.kind === 'retry' ? 'retried' : undefined;
  }

  /** The retryPolicy of a failed run's DAG, from its facts when they tell, else from its definition. */
  private async retryPolicyOf(run: DagRunResource): Promise<DagRetryPolicy | undefined> {
    const facts = frozenFacts(run);
    if (run.status?.status !== RunStatus.Failed || (facts !== undefined && facts.retryPolicy === undefined))
      return undefined;
    return facts?.retryPolicy ?? (await this.deps.definitions.once(run))?.dag.retryPolicy;
  }

  /** What the run's end is owed: its container Pod removed, its trace exported, its mails sent. */
  private async afterEnd(key: string, run: DagRunResource): Promise<WorkResult | undefined> {
    const { deps } = this;
    // Every finished run is looked at again at each resync: one whose spec says nothing is owed
    // after its end costs no read of its definition.
    if (frozenFacts(run)?.afterEnd === false) return undefined;
    const definition = await deps.definitions.once(run);
    // A run whose definition never came ran nothing: nothing is owed.
    if (definition === undefined) return undefined;
    try {
      // Sealed records are read only now, by what may be owed (mails list steps, traces span them).
      const full = await deps.segments.expand(run);
      const parts = new IndependentParts();
      await parts.run("the run's container Pod's removal", () => deps.containers.reconcile(full, definition));
      await parts.run("the run's trace export", () => deps.telemetry.reconcile(full, definition));
      const mailAfterMs = await parts.run("the run's mails", () => deps.notify.reconcile(full, definition));
      parts.settle();
      // A mail waiting for a log that may never be archived is looked at again when its wait is over.
      return mailAfterMs === undefined ? undefined : { requeueAfterMs: mailAfterMs };
    } finally {
      // Finished runs must not hold the operator's memory: their records are read again when needed.
      deps.segments.forget(key);
    }
  }
}
