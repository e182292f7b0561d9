/**
 * Retrying a finished run (behaviour-notes 2, retry): the same run id runs again. Without a
 * step name, failed and canceled steps and everything downstream of them are reset; other
 * succeeded or skipped steps keep their status and outputs, which feed the re-run. With a step
 * name, only that step is reset and it runs once: its own retryPolicy does not apply. Handler
 * results are cleared so they run again. Pure.
 */
import type { Dag, Step } from '../../../core/dag/index.ts';
import { ANNOTATIONS } from '../../../core/resources/constants.ts';
import type { DagRunStatus, RunNode } from '../../../core/resources/schemas.ts';
import { RunStatus, StepStatus, runStatusLabel, stepStatusLabel } from '../../../core/resources/status.ts';
import type { DagRunResource } from '../../../core/resources/types.ts';

/** How the API asks for a retry: annotations on the DAGRun (its spec is immutable). */
export const RETRY_ANNOTATION = ANNOTATIONS.retry;
export const RETRY_STEP_ANNOTATION = ANNOTATIONS.retryStep;

function downstreamOf(dag: Dag, roots: ReadonlySet<string>): Set<string> {
  const reset = new Set(roots);
  for (let grew = true; grew;) {
    grew = false;
    for (const step of dag.steps) {
      if (!reset.has(step.name) && step.depends.some((d) => reset.has(d))) {
        reset.add(step.name);
        grew = true;
      }
    }
  }
  return reset;
}

function fresh(node: RunNode): RunNode {
  // The attempt number keeps counting: Pod names of earlier attempts must never be reused.
  return {
    name: node.name,
    status: StepStatus.NotStarted,
    statusLabel: stepStatusLabel(StepStatus.NotStarted),
    retryCount: 0,
    doneCount: 0,
    attempt: (node.attempt ?? 0) + 1,
  };
}

export function retryStatus(dag: Dag, status: DagRunStatus, now: Date, stepName?: string): DagRunStatus {
  const nodes = status.nodes ?? [];
  const failed = new Set(
    nodes
      .filter(
        (n) => n.status === StepStatus.Failed || n.status === StepStatus.Canceled || n.status === StepStatus.NotStarted,
      )
      .map((n) => n.name),
  );
  const reset = stepName === undefined ? downstreamOf(dag, failed) : new Set([stepName]);
  const {
    finishedAt: _end,
    endReason: _reason,
    error: _error,
    retriedStep: _step,
    onInit: _i,
    // A retry is a new execution: its waits, wait handler and wait mails are its own.
    waits: _w,
    onWait: _ow,
    onExit: _x,
    onSuccess: _s,
    onFailure: _f,
    onCancel: _c,
    ...rest
  } = status;
  return {
    ...rest,
    status: RunStatus.Running,
    statusLabel: runStatusLabel(RunStatus.Running),
    startedAt: now.toISOString(),
    nodes: nodes.map((n) => (reset.has(n.name) ? fresh(n) : n)),
    ...(stepName === undefined ? {} : { retriedStep: stepName }),
  };
}

/** The step as its next attempt is judged: a step retried on its own runs once (behaviour-notes 2). */
export function stepForAttempt(step: Step, status: DagRunStatus): Step {
  if (status.retriedStep !== step.name) return step;
  const { retryPolicy: _policy, ...once } = step;
  return once;
}

/**
 * The first status of a run that retries another under a new id: the original's step states
 * (without its Pods, spilled outputs or bookkeeping), then reset as any retry resets them.
 */
export function copiedRetryStatus(dag: Dag, original: DagRunStatus, now: Date): DagRunStatus {
  const {
    retryToken: _token,
    conditions: _conditions,
    observedGeneration: _generation,
    sealed: _sealed,
    ...copied
  } = original;
  const nodes = (copied.nodes ?? []).map(({ outputRefs: _refs, pod: _pod, ...node }) => node);
  return retryStatus(dag, { ...copied, nodes }, now);
}

/** What a finished run's retry annotation asks for now. */
export type RetryRequest =
  | { readonly kind: 'none' }
  /** A stop left over from before is lifted first: the retry follows on the next reconcile. */
  | { readonly kind: 'liftStop' }
  | { readonly kind: 'retry'; readonly token: string; readonly step?: string };

/** A retry in place is asked for by a token (`kubedag.io/retry`) the run has not answered yet. */
export function retryRequest(run: DagRunResource): RetryRequest {
  const annotations = run.metadata?.annotations ?? {};
  const token = annotations[RETRY_ANNOTATION];
  if (token === undefined || token === run.status?.retryToken) return { kind: 'none' };
  if (run.spec.stop === true) return { kind: 'liftStop' };
  const step = annotations[RETRY_STEP_ANNOTATION] || undefined;
  return { kind: 'retry', token, ...(step === undefined ? {} : { step }) };
}

/** What a retry writes: the status the run starts again from, and the Event that says why. */
export interface RetryWrite {
  readonly status: DagRunStatus;
  readonly message: string;
}

/** A retry in place of a run whose frozen definition is `dag` and whose full status is `status`. */
export function inPlaceRetry(
  dag: Dag,
  status: DagRunStatus,
  request: Extract<RetryRequest, { kind: 'retry' }>,
  now: Date,
): RetryWrite {
  return {
    status: { ...retryStatus(dag, status, now, request.step), retryToken: request.token },
    message: request.step === undefined ? 'retrying failed and canceled steps' : `retrying step ${request.step}`,
  };
}

/** A retry under a new id that has not taken its original's step states yet. */
export function copiesOriginal(run: DagRunResource): boolean {
  return run.metadata?.annotations?.[ANNOTATIONS.retryOf] !== undefined && run.status === undefined;
}

/** The first write of a retry under a new id, from its original's full status. */
export function copiedRetry(dag: Dag, original: DagRunStatus, originalId: string, now: Date): RetryWrite {
  return {
    status: copiedRetryStatus(dag, original, now),
    message: `retrying run ${originalId} under a new id`,
  };
}
