/**
 * A run's DAG-level automatic retries (Dagu 2.x's `retry_policy`): how many the operator's
 * finished-run controller has made, kept in one annotation because each retry rewrites the
 * status (docs/decisions/2026-11-29-dagu-2x-semantics.md), and the limit the run was frozen
 * with. Both are one number whatever the run's size. Read by the operator, which decides the
 * next retry, and by the API server, which shows them (Dagu's `autoRetryCount`, `autoRetryLimit`).
 */
import { ANNOTATIONS } from './constants.ts';
import type { DagRunResource } from './types.ts';

/** How many times the policy has retried the run so far (0 for a value that is not a count). */
export function autoRetryCount(run: DagRunResource): number {
  const count = Number(run.metadata?.annotations?.[ANNOTATIONS.autoRetries] ?? '0');
  return Number.isInteger(count) && count > 0 ? count : 0;
}

/** The policy's limit, when the run's definition sets a DAG-level retry policy that retries. */
export function autoRetryLimit(run: DagRunResource): number | undefined {
  const limit = run.spec.frozenDefinition?.retryPolicy?.limit;
  return limit === undefined || limit <= 0 ? undefined : limit;
}
