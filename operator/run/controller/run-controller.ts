/**
 * The DAGRun controller, keyed by `namespace/name` and level-triggered: every reconcile starts
 * from what the caches show. A run goes through freezing (freezing.ts), a retry's copy of its
 * original (retry-writes.ts), its queue (admission.ts; the admission loop lets it out), then rounds
 * of gather (gather.ts) -> decide (engine.ts, pure) -> act (act.ts) until it finishes. A
 * finished run answers retries, exports its trace (telemetry/reconciler.ts) and removes its
 * container Pod (container-cleanup.ts); mails about the run and its failed steps go out from
 * Pods (notify/reconciler.ts); its logs and
 * Pods are the archiver's, its expiry the retention reconciler's.
 */
import type { WorkResult } from '../../../core/kube/queue.ts';
import type { Informer } from '../../../core/kube/informer.ts';
import type { Clock } from '../../../core/kube/time.ts';
import { frozenFacts } from '../../../core/resources/frozen.ts';
import { RunStatus } from '../../../core/resources/status.ts';
import type { DagRunResource } from '../../../core/resources/types.ts';
import type { NotifyReconciler } from '../../notify/reconciler.ts';
import type { TelemetryReconciler } from '../../telemetry/reconciler.ts';
import type { RunActor } from './act.ts';
import type { ContainerCleanup } from '../finished/container-cleanup.ts';
import { queuePlace } from '../decide/admission.ts';
import type { DefinitionCache } from '../shared/loaded-definitions.ts';
import { decide } from '../decide/engine.ts';
import { definitionArrived, frozen, type FreezeDeps } from './freezing.ts';
import type { RunGatherer } from './gather.ts';
import { IndependentParts } from '../finished/independent-parts.ts';
import { isFinished } from '../decide/observed.ts';
import { copiesOriginal, copyFromOriginal, retryInPlace, type RetryDeps } from './retry-writes.ts';
import type { RunSegments } from '../shared/segments.ts';
import type { RunWriter } from '../shared/status-writer.ts';

export interface RunControllerDeps extends FreezeDeps, RetryDeps {
  readonly runs: Informer<DagRunResource>;
  readonly definitions: DefinitionCache;
  readonly segments: RunSegments;
  readonly gatherer: RunGatherer;
  readonly actor: RunActor;
  readonly writer: RunWriter;
  readonly clock: Clock;
  /** A finished run's trace export (otel). */
  readonly telemetry: TelemetryReconciler;
  /** Mails about the run (mailOn) and its failed steps (mailOnError). */
  readonly notify: NotifyReconciler;
  /** A finished run's container Pod. */
  readonly containers: ContainerCleanup;
}

export class RunController {
  private readonly deps: RunControllerDeps;

  constructor(deps: RunControllerDeps) {
    this.deps = deps;
  }

  async reconcile(key: string): Promise<WorkResult | undefined> {
    const { deps } = this;
    const [namespace = '', name = ''] = key.split('/');
    const cached = deps.runs.get(namespace, name);
    if (cached === undefined || isFinished(cached)) {
      deps.definitions.forget(key);
      if (cached === undefined) return undefined;
      try {
        return await this.finished(cached);
      } finally {
        // Finished runs must not hold the operator's memory: their records are read again when needed.
        deps.segments.forget(key);
      }
    }
    const run = await frozen(cached, deps);
    if (run === undefined) return undefined;
    const place = queuePlace(run);
    // A run about to start, or to copy its original, needs its definition now; a queued one waits without it.
    if (place === 'proceed' || copiesOriginal(run)) {
      const arrived = await definitionArrived(run, deps);
      if (arrived !== true) return arrived;
    }
    if (await copyFromOriginal(run, deps)) return undefined;
    // Queued runs wait for the admission loop (operator/queue/loop.ts) to let them out.
    if (place === 'enter')
      await deps.writer.writeStatus(run, {
        status: RunStatus.Queued,
        statusLabel: 'queued',
        queuedAt: deps.clock.now().toISOString(),
      });
    if (place !== 'proceed') return undefined;
    const input = await deps.gatherer.snapshot(run);
    const decision = decide(input);
    await deps.actor.act(run, input, decision);
    // A step that failed for good mails now (mailOnError); the write that marked it brings us here.
    const mailAfterMs = await deps.notify.reconcile(await deps.segments.expand(run), input.definition);
    return requeueAfter(decision.requeueAfterMs, mailAfterMs);
  }

  /** A finished run, as stored: retries (which read its sealed records themselves), then what is owed after its end. */
  private async finished(run: DagRunResource): Promise<WorkResult | undefined> {
    const { deps } = this;
    // A retry starting now makes the run unfinished: its trace waits for the new end.
    if (await retryInPlace(run, deps)) return undefined;
    // Every run is looked at again at each resync: one whose spec says nothing is owed after
    // its end costs no read of its definition.
    if (frozenFacts(run)?.afterEnd === false) return undefined;
    const definition = await deps.definitions.once(run);
    // A run whose definition never came ran nothing: nothing is owed.
    if (definition === undefined) return undefined;
    // Sealed records are read only now, by what may be owed (mails list steps, traces span them).
    const full = await deps.segments.expand(run);
    // Each part is owed on its own: a failing one must not skip the others (independent-parts.ts).
    const parts = new IndependentParts();
    await parts.run("the run's container Pod's removal", () => deps.containers.reconcile(full, definition));
    await parts.run("the run's trace export", () => deps.telemetry.reconcile(full, definition));
    const mailAfterMs = await parts.run("the run's mails", () => deps.notify.reconcile(full, definition));
    parts.settle();
    // A mail waiting for a log that may never be archived is looked at again when its wait is over.
    return requeueAfter(mailAfterMs);
  }
}

/** The soonest of the times to look again, if any. */
function requeueAfter(...times: (number | undefined)[]): WorkResult | undefined {
  const due = times.filter((t): t is number => t !== undefined);
  return due.length === 0 ? undefined : { requeueAfterMs: Math.min(...due) };
}
