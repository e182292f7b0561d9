/**
 * A run whose status the Kubernetes API refuses for good (over etcd's or the API server's size
 * limit, invalid against the schema or a CEL rule, denied by an admission policy), or whose
 * stop cannot be written at all: the run ends with the largest status that may still fit,
 * rather than retrying the same refused write for ever while it shows `running`. Pure.
 *
 * The candidates, tried in order until one is written (run-ender.ts):
 *   1. each step's name and status (a step still running is canceled: its Pod is stopped), and
 *      the run's own fields (times, params, progress, error): what the UI's step list needs;
 *   2. the run's fields and its progress (`3219/4000`) only; the API then shows every step
 *      of the definition as not started, and the error says why.
 * Neither keeps attempts, outputs, handlers or the prepare step's values: their detail is what
 * grew. When both are refused too, the end goes into an annotation (core/resources/ended.ts).
 */
import type { RecordedEnd } from '../../../core/resources/ended.ts';
import type { DagRunStatus, RunNode } from '../../../core/resources/schemas.ts';
import { RunStatus, StepStatus, runStatusLabel, stepStatusLabel } from '../../../core/resources/status.ts';

/** The API's message is kept to this many characters: the error must not make the status large again. */
export const MESSAGE_MAX = 1024;

export interface RefusedWrite {
  /** Which limit of the API (core/kube/errors.ts refusalLimit). */
  readonly limit: string;
  /** What the API server said. */
  readonly message: string;
  /** The run was being stopped (spec.stop): it ends canceled, as a stop does, not failed. */
  readonly stopping: boolean;
}

/** What the run's error says: which limit, and the API's own words. */
export function refusalError(refusal: RefusedWrite): string {
  const said = refusal.message.length > MESSAGE_MAX ? `${refusal.message.slice(0, MESSAGE_MAX)}...` : refusal.message;
  if (refusal.stopping) return `stopped; the run's full status could not be written (${refusal.limit}): ${said}`;
  return `the Kubernetes API refused the run's status (${refusal.limit}), so the run was ended and its steps stopped: ${said}`;
}

function endStatus(refusal: RefusedWrite): number {
  return refusal.stopping ? RunStatus.Canceled : RunStatus.Failed;
}

/** A step as the smaller status keeps it: name and status; a step still running was stopped. */
function slimNode(node: RunNode): RunNode {
  const status = node.status === StepStatus.Running ? StepStatus.Canceled : node.status;
  return { name: node.name, status, statusLabel: stepStatusLabel(status) };
}

/** The statuses that end the run, largest first; `status` is the one the API refused. */
export function endedStatuses(status: DagRunStatus, refusal: RefusedWrite, now: Date): DagRunStatus[] {
  const final = endStatus(refusal);
  const error = refusalError(refusal);
  const { queuedAt, startedAt, params, retryToken, retriedStep, progress } = status;
  const kept: DagRunStatus = Object.fromEntries(
    Object.entries({ queuedAt, startedAt, retryToken, retriedStep, progress }).filter(([, v]) => v !== undefined),
  );
  const ended: DagRunStatus = {
    ...kept,
    status: final,
    statusLabel: runStatusLabel(final),
    startedAt: startedAt ?? now.toISOString(),
    finishedAt: now.toISOString(),
    endReason: refusal.stopping ? 'stopped' : 'refused',
  };
  const steps = (status.nodes ?? []).map(slimNode);
  return [
    {
      ...ended,
      ...(params === undefined ? {} : { params }),
      nodes: steps,
      error: `${error} (step details were left out to fit)`,
    },
    { ...ended, error: `${error} (only the progress was kept; step statuses were left out to fit)` },
  ];
}

/** The end recorded in the run's annotation when no status at all could be written. */
export function endToRecord(status: DagRunStatus, refusal: RefusedWrite, now: Date): RecordedEnd {
  return {
    status: endStatus(refusal),
    finishedAt: now.toISOString(),
    error: `${refusalError(refusal)} (no status could be written: this end is recorded in the kubedag.io/ended annotation)`,
    endReason: refusal.stopping ? 'stopped' : 'refused',
    token: status.retryToken ?? '',
  };
}
