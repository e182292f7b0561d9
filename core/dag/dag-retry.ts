/**
 * Dagu 2.x's DAG-level `retry_policy` (v2.15.1 `internal/spec/dag.go` buildDAGRetryPolicy,
 * `internal/service/scheduler/retry_scanner.go`): a failed root run is retried (as a person's
 * retry does: its failed steps run again), up to
 * `limit` times, each after `interval_sec * backoff^n` (capped at `max_interval_sec`) from its
 * end. Dagu makes every value concrete at load (the scheduler decides from the stored snapshot),
 * so numbers or numeric strings only, no variables. Kubedag's operator does the retrying
 * (operator/run/finished/auto-retry.ts); the rules: docs/decisions/2026-11-29-dagu-2x-semantics.md.
 */
import { childPath, issue, type DagIssue } from './issues.ts';
import type { DagRetryPolicy } from './model.ts';

/** The policy as written (1.x spelling: the dialect rewrite has renamed 2.x's keys). */
export interface DagRetryPolicyFile {
  readonly limit?: unknown;
  readonly intervalSec?: unknown;
  readonly backoff?: unknown;
  readonly maxIntervalSec?: unknown;
}

const PATH = 'retryPolicy';

/** A concrete integer (a number or a numeric string), with Dagu's words when it is not one. */
function concrete(value: unknown, key: string, allowZero: boolean, errors: DagIssue[]): number | undefined {
  const at = childPath(PATH, key);
  const parsed = typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof parsed !== 'number' || !Number.isInteger(parsed)) {
    errors.push(issue(at, 'must be an integer or numeric string'));
    return undefined;
  }
  if (parsed < 0 || (!allowZero && parsed === 0)) {
    errors.push(issue(at, `must be ${allowZero ? '>= 0' : '> 0'}`));
    return undefined;
  }
  return parsed;
}

/** A step's backoff rule: true is 2, false or absent none, else a number above 1. */
function backoffOf(value: unknown, errors: DagIssue[]): number | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return 2;
  if (typeof value === 'number' && value > 1) return value;
  errors.push(
    issue(childPath(PATH, 'backoff'), `must be greater than 1 (or true for 2), not ${JSON.stringify(value)}`),
  );
  return undefined;
}

/** The policy with Dagu's defaults (interval 60 s, at most 3600 s), or undefined with the errors why. */
export function dagRetryPolicyOf(file: DagRetryPolicyFile | undefined, errors: DagIssue[]): DagRetryPolicy | undefined {
  if (file === undefined) return undefined;
  const before = errors.length;
  if (file.limit === undefined) {
    errors.push(issue(childPath(PATH, 'limit'), 'limit is required when retry_policy is specified'));
    return undefined;
  }
  const limit = concrete(file.limit, 'limit', true, errors);
  const intervalSec = file.intervalSec === undefined ? 60 : concrete(file.intervalSec, 'intervalSec', false, errors);
  const maxIntervalSec =
    file.maxIntervalSec === undefined ? 3600 : concrete(file.maxIntervalSec, 'maxIntervalSec', false, errors);
  const backoff = backoffOf(file.backoff, errors);
  if (errors.length > before || limit === undefined || intervalSec === undefined || maxIntervalSec === undefined)
    return undefined;
  return { limit, intervalSec, maxIntervalSec, ...(backoff === undefined ? {} : { backoff }) };
}

/** Dagu's CalculateBackoffInterval: the wait before auto-retry `n` (0-based), in ms. */
export function dagRetryDelayMs(policy: DagRetryPolicy, n: number): number {
  const seconds =
    policy.backoff === undefined
      ? policy.intervalSec
      : Math.min(policy.intervalSec * policy.backoff ** n, policy.maxIntervalSec);
  return seconds * 1000;
}
