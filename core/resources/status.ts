/**
 * Run and step statuses with their labels (behaviour-notes 3: Kubedag says `canceled`). 7 and 8
 * are Dagu 2.x's (a step waiting for a person, a step a person rejected, and the run they leave):
 * /api/v1 shows them as they are, /api/v2 (Dagu 1.24 has neither) as running and failed
 * (docs/decisions/2026-11-29-approval.md).
 */
export const RunStatus = {
  NotStarted: 0,
  Running: 1,
  Failed: 2,
  Canceled: 3,
  Succeeded: 4,
  Queued: 5,
  PartiallySucceeded: 6,
  Waiting: 7,
  Rejected: 8,
} as const;
export type RunStatusValue = (typeof RunStatus)[keyof typeof RunStatus];

export const StepStatus = {
  NotStarted: 0,
  Running: 1,
  Failed: 2,
  Canceled: 3,
  Succeeded: 4,
  Skipped: 5,
  PartiallySucceeded: 6,
  Waiting: 7,
  Rejected: 8,
} as const;
export type StepStatusValue = (typeof StepStatus)[keyof typeof StepStatus];

const RUN_LABELS = [
  'not_started',
  'running',
  'failed',
  'canceled',
  'succeeded',
  'queued',
  'partially_succeeded',
  'waiting',
  'rejected',
] as const;
const STEP_LABELS = [
  'not_started',
  'running',
  'failed',
  'canceled',
  'succeeded',
  'skipped',
  'partially_succeeded',
  'waiting',
  'rejected',
] as const;

export function runStatusLabel(status: number): string {
  return RUN_LABELS[status] ?? 'not_started';
}

export function stepStatusLabel(status: number): string {
  return STEP_LABELS[status] ?? 'not_started';
}

/** A step that will not change any more on its own. */
export function stepDone(status: number): boolean {
  return (
    status === StepStatus.Failed ||
    status === StepStatus.Canceled ||
    status === StepStatus.Succeeded ||
    status === StepStatus.Skipped ||
    status === StepStatus.PartiallySucceeded ||
    status === StepStatus.Rejected
  );
}

/** A run that has not ended: it runs, or a step of it waits for a person. */
export function runActive(status: number | undefined): boolean {
  return status === RunStatus.Running || status === RunStatus.Waiting;
}

/** A run or step status as /api/v2 (Dagu 1.24) numbers them: waiting is running, rejected is failed. */
export function v2Status(status: number): number {
  if (status === RunStatus.Waiting) return RunStatus.Running;
  return status === RunStatus.Rejected ? RunStatus.Failed : status;
}
