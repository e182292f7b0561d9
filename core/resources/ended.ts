/**
 * A run's end recorded on the DAGRun's metadata, for the one case where the Kubernetes API
 * refuses every status the operator can write (an admission policy or a CEL rule that denies
 * any status update of the run, a webhook that never answers while the run is being stopped).
 * The status then still says `running`; the `kubedag.io/ended` annotation says how the run
 * ended, and every Kubedag cache (the operator's and the API server's informers) shows the run
 * through `withRecordedEnd`, so the queue, retention, the API and the UI all see it ended.
 * docs/decisions/2026-11-28-refused-status-writes.md says why an annotation. Pure.
 */
import { ANNOTATIONS } from './constants.ts';
import type { DagRunStatus } from './schemas.ts';
import { StepStatus, runStatusLabel, stepStatusLabel } from './status.ts';
import type { DagRunResource } from './types.ts';

export interface RecordedEnd {
  /** Failed or Canceled. */
  readonly status: number;
  readonly finishedAt: string;
  readonly error: string;
  readonly endReason: NonNullable<DagRunStatus['endReason']>;
  /** The retry (status.retryToken) the end belongs to: a later retry that did write its status is not ended by it. */
  readonly token: string;
}

/** The annotation's value for an end. */
export function recordedEndValue(end: RecordedEnd): string {
  return JSON.stringify(end);
}

/** The end the run's annotation records, if it has a readable one. */
export function recordedEnd(run: DagRunResource): RecordedEnd | undefined {
  const text = run.metadata?.annotations?.[ANNOTATIONS.ended];
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<RecordedEnd> | null;
    if (typeof value?.status !== 'number' || typeof value.finishedAt !== 'string') return undefined;
    return {
      status: value.status,
      finishedAt: value.finishedAt,
      error: value.error ?? '',
      endReason: value.endReason ?? 'refused',
      token: value.token ?? '',
    };
  } catch {
    return undefined;
  }
}

/**
 * The run as a reader should see it: unchanged unless its status is not finished and its
 * annotation records an end of the same execution; then the status says that end. The
 * argument is not changed (an informer transform: it may be a write's answer still held).
 */
export function withRecordedEnd(run: DagRunResource): DagRunResource {
  const end = recordedEnd(run);
  const status = run.status ?? {};
  if (end === undefined || status.finishedAt !== undefined || (status.retryToken ?? '') !== end.token) return run;
  const { heldSteps: _held, handedOffAt: _handedOff, ...rest } = status;
  const ended: DagRunStatus = {
    ...rest,
    status: end.status,
    statusLabel: runStatusLabel(end.status),
    finishedAt: end.finishedAt,
    error: end.error,
    endReason: end.endReason,
    // The steps the refused status still lists as running were stopped with the run.
    ...(status.nodes === undefined
      ? {}
      : {
          nodes: status.nodes.map((n) =>
            n.status === StepStatus.Running
              ? { ...n, status: StepStatus.Canceled, statusLabel: stepStatusLabel(StepStatus.Canceled) }
              : n,
          ),
        }),
  };
  return { ...run, status: ended };
}
