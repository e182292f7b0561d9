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
import { frozenFacts } from '../../../core/resources/frozen.ts';
import type { DagRunResource } from '../../../core/resources/types.ts';
import type { NotifyReconciler } from '../../notify/reconciler.ts';
import type { TelemetryReconciler } from '../../telemetry/reconciler.ts';
import { isFinished } from '../decide/observed.ts';
import { retryRequest } from '../decide/retry-status.ts';
import type { DefinitionCache } from '../shared/loaded-definitions.ts';
import type { RunSegments } from '../shared/segments.ts';
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
