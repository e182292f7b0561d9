/**
 * Dagu 2.x's DAG-level `retry_policy` (v2.15.1 `internal/service/scheduler/retry_scanner.go`):
 * a failed root run of a DAG that is not suspended is retried in place (as Dagu's retry plan:
 * its failed steps and what follows them run again, succeeded ones keep their result), up to the
 * policy's `limit` times, each once `interval_sec * backoff^n` (at most `max_interval_sec`) has
 * passed since its end, and only within a day of its creation (Dagu's retry window). Kubedag
 * does it level-triggered: the finished-run controller asks `autoRetry` (pure) about each
 * finished run, and a retry due is the in-place retry a person asks for (the `kubedag.io/retry`
 * annotation), written together with the count (`kubedag.io/auto-retries`) in one patch that
 * applies only to the version decided on; a retry not due yet is looked at again when it is.
 * docs/decisions/2026-11-29-dagu-2x-semantics.md.
 */
import { dagRetryDelayMs, type DagRetryPolicy } from '../../../core/dag/index.ts';
import { autoRetryCount } from '../../../core/resources/auto-retries.ts';
import { ANNOTATIONS } from '../../../core/resources/constants.ts';
import { RunStatus } from '../../../core/resources/status.ts';
import type { DagRunResource } from '../../../core/resources/types.ts';
import type { Clock } from '../../../core/kube/time.ts';
import type { RunWriter } from '../shared/status-writer.ts';

/** Dagu's scheduler.retry_failure_window default: runs created longer ago are not retried. */
export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface AutoRetryInput {
  readonly run: DagRunResource;
  readonly policy: DagRetryPolicy | undefined;
  readonly dagSuspended: boolean;
  readonly now: Date;
}

export type AutoRetryDecision =
  | { readonly kind: 'none'; readonly why: string }
  | { readonly kind: 'wait'; readonly untilMs: number }
  | { readonly kind: 'retry'; readonly count: number };

/** How many times the policy has retried the run so far (the annotation, core/resources/auto-retries.ts). */
export const autoRetries: (run: DagRunResource) => number = autoRetryCount;

/** Whether, and when, the DAG's retry policy retries a finished run. Pure. */
export function autoRetry({ run, policy, dagSuspended, now }: AutoRetryInput): AutoRetryDecision {
  if (policy === undefined || policy.limit <= 0) return { kind: 'none', why: 'no retry policy' };
  if (run.status?.status !== RunStatus.Failed) return { kind: 'none', why: 'not failed' };
  // Sub runs are retried by their parent's steps, never on their own (as in Dagu).
  if (run.spec.parent !== undefined) return { kind: 'none', why: 'a sub run' };
  if (dagSuspended) return { kind: 'none', why: 'the DAG is suspended' };
  const count = autoRetries(run);
  if (count >= policy.limit) return { kind: 'none', why: 'retries exhausted' };
  // A Date from the typed client, a string from a cache fed by plain JSON: new Date reads both.
  const created = new Date(run.metadata?.creationTimestamp ?? Number.NaN).getTime();
  if (Number.isFinite(created) && now.getTime() - created > RETRY_WINDOW_MS)
    return { kind: 'none', why: 'outside the retry window' };
  const finished = Date.parse(run.status.finishedAt ?? '');
  if (!Number.isFinite(finished)) return { kind: 'none', why: 'no end time' };
  const due = finished + dagRetryDelayMs(policy, count);
  return now.getTime() < due ? { kind: 'wait', untilMs: due - now.getTime() } : { kind: 'retry', count: count + 1 };
}

export interface AutoRetryDeps {
  readonly writer: RunWriter;
  readonly clock: Clock;
}

/** Acts on autoRetry: writes the retry and its count when one is due; returns the decision. */
export class AutoRetryReconciler {
  private readonly deps: AutoRetryDeps;

  constructor(deps: AutoRetryDeps) {
    this.deps = deps;
  }

  async reconcile(
    run: DagRunResource,
    policy: DagRetryPolicy | undefined,
    dagSuspended: boolean,
  ): Promise<AutoRetryDecision> {
    const decision = autoRetry({ run, policy, dagSuspended, now: this.deps.clock.now() });
    if (decision.kind !== 'retry') return decision;
    const annotations = {
      ...run.metadata?.annotations,
      // A token of its own per retry: the run controller retries once per new value.
      [ANNOTATIONS.retry]: `auto-${String(decision.count)}`,
      [ANNOTATIONS.autoRetries]: String(decision.count),
    };
    await this.deps.writer.patchSpec(run, [{ op: 'add', path: '/metadata/annotations', value: annotations }]);
    return decision;
  }
}
