/**
 * The DAGRun controller, keyed by `namespace/name` and level-triggered: every reconcile starts
 * from what the caches show. A run goes through freezing (freezing.ts), a retry's copy of its
 * original (retry-writes.ts), its queue (admission.ts; the admission loop lets it out), then rounds
 * of gather (gather.ts) -> decide (engine.ts, pure) -> act (act.ts) until it finishes; mails
 * about its failed steps go out meanwhile from Pods (notify/reconciler.ts). A finished run
 * answers retries here; what it is owed after its end (container Pod, trace, mails) is the
 * finished-run controller's (finished/finished-controller.ts), its logs and Pods the
 * archiver's, its expiry the retention reconciler's.
 */
import type { WorkResult } from '../../../core/kube/queue.ts';
import type { Informer } from '../../../core/kube/informer.ts';
import type { Clock } from '../../../core/kube/time.ts';
import type { DagRunResource } from '../../../core/resources/types.ts';
import type { NotifyReconciler } from '../../notify/reconciler.ts';
import type { RunActor } from './act.ts';
import { queueEntry, queuePlace } from '../decide/admission.ts';
import type { DefinitionCache } from '../shared/loaded-definitions.ts';
import { decide } from '../decide/engine.ts';
import { definitionArrived, frozen, type FreezeDeps } from './freezing.ts';
import type { LaunchFacts, RunGatherer } from './gather.ts';
import { isFinished } from '../decide/observed.ts';
import { copiesOriginal } from '../decide/retry-status.ts';
import { copyFromOriginal, retryInPlace, type RetryDeps } from './retry-writes.ts';
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
  /** Mails about failed steps of a running run (mailOnError); a finished run's are the finished-run controller's. */
  readonly notify: NotifyReconciler;
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
        await retryInPlace(cached, deps);
      } finally {
        // Finished runs must not hold the operator's memory: their records are read again when needed.
        deps.segments.forget(key);
      }
      // What a finished run is owed after its end is the finished-run controller's (finished/).
      return undefined;
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
    if (place === 'enter') await deps.writer.writeStatus(run, queueEntry(deps.clock.now()));
    if (place !== 'proceed') return undefined;
    const input = await deps.gatherer.snapshot(run);
    const decision = decide(input);
    // Claimed before any await, so that runs reconciled side by side share the overall Pod cap.
    deps.actor.claim(decision);
    let launching: LaunchFacts;
    try {
      launching = await deps.gatherer.forLaunches(run, decision);
    } catch (error) {
      deps.actor.release(decision);
      throw error;
    }
    await deps.actor.act(run, input, decision, launching);
    // A step that failed for good mails now (mailOnError); the write that marked it brings us here.
    const mailAfterMs = await deps.notify.reconcile(await deps.segments.expand(run), input.definition);
    return requeueAfter(decision.requeueAfterMs, mailAfterMs);
  }
}

/** The soonest of the times to look again, if any. */
function requeueAfter(...times: (number | undefined)[]): WorkResult | undefined {
  const due = times.filter((t): t is number => t !== undefined);
  return due.length === 0 ? undefined : { requeueAfterMs: Math.min(...due) };
}
